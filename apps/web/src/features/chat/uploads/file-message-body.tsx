/**
 * A file message's body: image thumbnail (opens full size), inline audio or video player; its kind, name, size and a
 * Download link. A sealed file (docs/protocol/encryption.md, "File records"), personal or of an encrypted discussion, shows its opened
 * name and plain size; its image opens in the page, and its players and Download use the service worker's route,
 * which opens the bytes as they stream.
 */
import { type Message, SEALED_TEXT } from "@daysync/shared";
import { type MouseEvent, useRef, useState } from "react";
import type { Shown } from "../../../lib/shown.ts";
import { FileKindIcon, fileKindOf } from "./file-kind.tsx";
import { formatBytes } from "./format-bytes.ts";
import { useDownloadInPage, useOpenedImage, useSealedFile, useWorkerControls } from "./use-sealed-file.ts";

type FileMessage = Pick<
  Message,
  "id" | "type" | "filename" | "file_url" | "file_size" | "date" | "time" | "epoch" | "preview" | "file_key" | "device"
> & { discussion_id?: string; generation?: number; sender_key_id?: string };

/** `shown` is the message's name as this device shows it, opened by the chat's data hooks (api/). */
export function FileMessageBody({ message, shown }: { message: FileMessage; shown: Shown }) {
  if (message.generation !== undefined && message.discussion_id) {
    if (shown.kind !== "text") return <Sealed shown={shown} />;
    return <SealedFileBody message={message} discussionId={message.discussion_id} name={shown.text} />;
  }
  if (message.epoch === undefined) {
    const name = message.filename || "File";
    return (
      <FileBody name={name} type={message.type} size={message.file_size} href={message.file_url} imageUrl={message.file_url} players />
    );
  }
  if (shown.kind !== "text") return <Sealed shown={shown} />;
  return <SealedFileBody message={message} name={shown.text} />;
}

function Sealed({ shown }: { shown: Exclude<Shown, { kind: "text" }> }) {
  return (
    <p className="message-text message-sealed" aria-busy={shown.kind === "opening" || undefined}>
      {shown.kind === "notice" ? shown.text : null}
    </p>
  );
}

function SealedFileBody({ message, discussionId, name }: { message: FileMessage; discussionId?: string; name: string }) {
  const sealed = useSealedFile(message, discussionId);
  const thumbnail = sealed?.thumbnail ?? false;
  const image = useOpenedImage(thumbnail ? sealed?.file : undefined);
  const controlled = useWorkerControls();
  const downloadInPage = useDownloadInPage(sealed?.file);
  const [failed, setFailed] = useState(false);

  if (!sealed || (thumbnail && image.state === "undecryptable")) {
    return <Sealed shown={{ kind: "notice", text: SEALED_TEXT.undecryptable }} />;
  }
  const onDownload = (event: MouseEvent) => {
    if (controlled) return;
    event.preventDefault();
    void downloadInPage().then((ok) => setFailed(!ok));
  };
  return (
    <FileBody
      name={name}
      type={message.type}
      size={sealed.size}
      href={sealed.href}
      imageUrl={thumbnail ? (image.state === "opened" ? image.url : null) : undefined}
      players={controlled}
      onDownload={onDownload}
      note={failed ? SEALED_TEXT.undecryptable : undefined}
    />
  );
}

interface FileBodyProps {
  name: string;
  type: Message["type"];
  size: number | undefined;
  href: string;
  /** The image to show; null while it opens; undefined to show none (not an image, or too large to open here). */
  imageUrl?: string | null;
  /** Whether audio and video get an inline player (at `href`). */
  players: boolean;
  /**
   * A sealed file's Download: the worker's answer names the file, so its link has no `download` attribute (Chromium
   * cancels a `download` link's streamed answer from a worker); without a worker it opens the file in the page.
   */
  onDownload?: (event: MouseEvent) => void;
  /** Said under the file (a download that failed). */
  note?: string;
}

function FileBody({ name, type, size, href, imageUrl, players, onDownload, note }: FileBodyProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  return (
    <div className="file-message">
      {type === "image" && imageUrl !== undefined ? (
        <>
          <button
            type="button"
            className="file-thumb"
            aria-label={`Open ${name} full size`}
            aria-busy={imageUrl === null || undefined}
            disabled={imageUrl === null}
            onClick={() => dialog.current?.showModal()}
          >
            {imageUrl === null ? null : <img src={imageUrl} alt={name} loading="lazy" decoding="async" width={240} height={180} />}
          </button>
          {imageUrl === null ? null : (
            <dialog ref={dialog} className="image-viewer" aria-label={name}>
              <img src={imageUrl} alt={name} />
              <button type="button" className="btn btn-secondary image-viewer-close" onClick={() => dialog.current?.close()}>
                Close
              </button>
            </dialog>
          )}
        </>
      ) : null}
      {type === "video" && players ? (
        // biome-ignore lint/a11y/useMediaCaption: the user's own recordings have no caption track
        <video className="file-player" src={href} controls preload="metadata" aria-label={name} />
      ) : null}
      {type === "audio" && players ? (
        // biome-ignore lint/a11y/useMediaCaption: the user's own recordings have no caption track
        <audio className="file-player" src={href} controls preload="metadata" aria-label={name} />
      ) : null}
      <p className="message-file">
        <FileKindIcon kind={fileKindOf(name, type)} />
        <span className="message-filename">{name}</span>
        {size === undefined ? null : <span className="message-filesize">{formatBytes(size)}</span>}
        <a className="message-action" href={href} download={onDownload ? undefined : name} onClick={onDownload}>
          Download
        </a>
      </p>
      {note ? (
        <p className="message-sealed" role="alert">
          {note}
        </p>
      ) : null}
    </div>
  );
}
