/** A file message's body: image thumbnail (opens full size), inline audio or video player; its kind, name, size and a Download link. */
import type { Message } from "@daysync/shared";
import { useRef } from "react";
import { FileKindIcon, fileKindOf } from "./file-kind.tsx";
import { formatBytes } from "./format-bytes.ts";

export function FileMessageBody({ message }: { message: Pick<Message, "type" | "filename" | "file_url" | "file_size"> }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const name = message.filename || "File";
  return (
    <div className="file-message">
      {message.type === "image" ? (
        <>
          <button type="button" className="file-thumb" aria-label={`Open ${name} full size`} onClick={() => dialog.current?.showModal()}>
            <img src={message.file_url} alt={name} loading="lazy" decoding="async" width={240} height={180} />
          </button>
          <dialog ref={dialog} className="image-viewer" aria-label={name}>
            <img src={message.file_url} alt={name} />
            <button type="button" className="btn btn-secondary image-viewer-close" onClick={() => dialog.current?.close()}>
              Close
            </button>
          </dialog>
        </>
      ) : null}
      {message.type === "video" ? (
        // biome-ignore lint/a11y/useMediaCaption: the user's own recordings have no caption track
        <video className="file-player" src={message.file_url} controls preload="metadata" aria-label={name} />
      ) : null}
      {message.type === "audio" ? (
        // biome-ignore lint/a11y/useMediaCaption: the user's own recordings have no caption track
        <audio className="file-player" src={message.file_url} controls preload="metadata" aria-label={name} />
      ) : null}
      <p className="message-file">
        <FileKindIcon kind={fileKindOf(name, message.type)} />
        <span className="message-filename">{name}</span>
        {message.file_size === undefined ? null : <span className="message-filesize">{formatBytes(message.file_size)}</span>}
        <a className="message-action" href={message.file_url} download={name}>
          Download
        </a>
      </p>
    </div>
  );
}
