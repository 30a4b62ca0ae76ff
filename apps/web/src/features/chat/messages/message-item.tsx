import type { Message } from "@daysync/shared";
import { memo } from "react";
import { FileMessageBody } from "../uploads/file-message-body.tsx";
import { CopyButton } from "./copy-button.tsx";
import { DeleteButton } from "./delete-button.tsx";
import { LinkifiedText } from "./linkified-text.tsx";
import { MessageOrigin } from "./message-origin.tsx";
import { TimeLeft } from "./time-left.tsx";

interface MessageItemProps {
  message: Message;
  expiresAt: number | null;
  highlighted: boolean;
}

/** One stored message: text with Copy, or a file with its Download link; its time, its countdown and Delete. */
export const MessageItem = memo(function MessageItem({ message, expiresAt, highlighted }: MessageItemProps) {
  const isText = message.type === "text";
  return (
    <li className="message" id={`message-${message.id}`} data-highlighted={highlighted || undefined}>
      <div className="bubble">
        {isText ? (
          <p className="message-text">
            <LinkifiedText text={message.content} />
          </p>
        ) : (
          <FileMessageBody message={message} />
        )}
        <div className="message-meta">
          <time className="message-time">{message.time}</time>
          <MessageOrigin device={message.device} />
          {expiresAt !== null ? <TimeLeft expiresAt={expiresAt} /> : null}
          {isText ? <CopyButton text={message.content} /> : null}
          <DeleteButton messageId={message.id} />
        </div>
      </div>
    </li>
  );
});
