import { memo } from "react";
import { FileMessageBody } from "../uploads/file-message-body.tsx";
import { CopyButton } from "./copy-button.tsx";
import { DeleteButton } from "./delete-button.tsx";
import { LinkifiedText } from "./linkified-text.tsx";
import { MessageOrigin } from "./message-origin.tsx";
import type { ShownMessage } from "./shown-message.ts";
import { TimeLeft } from "./time-left.tsx";

interface MessageItemProps {
  message: ShownMessage;
  expiresAt: number | null;
  highlighted: boolean;
  /** Who wrote it, in a discussion ("You" for the reader's own). */
  author?: string;
  /** False hides Delete (another member's message in a discussion the reader does not own). */
  canDelete?: boolean;
  /** The discussion it belongs to, for Delete; none for the user's own day. */
  discussionId?: string;
}

/** One stored message: text with Copy, or a file with its Download link; its time, its countdown and Delete. */
export const MessageItem = memo(function MessageItem({
  message,
  expiresAt,
  highlighted,
  author,
  canDelete = true,
  discussionId,
}: MessageItemProps) {
  const isText = message.type === "text";
  const { shown } = message;
  return (
    <li
      className="message"
      id={`message-${message.id}`}
      data-highlighted={highlighted || undefined}
      data-own={author === "You" || undefined}
    >
      <div className="bubble">
        {author ? <p className="message-author">{author}</p> : null}
        {isText ? (
          shown.kind === "text" ? (
            <p className="message-text">
              <LinkifiedText text={shown.text} />
            </p>
          ) : (
            <p className="message-text message-sealed" aria-busy={shown.kind === "opening" || undefined}>
              {shown.kind === "notice" ? shown.text : null}
            </p>
          )
        ) : (
          <FileMessageBody message={message} shown={shown} />
        )}
        <div className="message-meta">
          <time className="message-time">{message.time}</time>
          {/* Another member's message: "Sent" would say nothing the reader can use. */}
          {author && author !== "You" ? null : <MessageOrigin device={message.device} />}
          {expiresAt !== null ? <TimeLeft expiresAt={expiresAt} /> : null}
          {isText && shown.kind === "text" ? <CopyButton text={shown.text} /> : null}
          {canDelete ? <DeleteButton messageId={message.id} discussionId={discussionId} /> : null}
        </div>
      </div>
    </li>
  );
});
