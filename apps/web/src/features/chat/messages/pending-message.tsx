import { AlertIcon, ClockIcon } from "../../../components/ui/icons.tsx";
import type { OutboxEntry } from "../../../lib/outbox-storage.ts";
import { useSessionServices } from "../../../lib/session-services.ts";
import { useLiveStatus } from "../../../lib/use-live-status.ts";
import { CopyButton } from "./copy-button.tsx";
import { LinkifiedText } from "./linkified-text.tsx";
import { PendingOrigin } from "./message-origin.tsx";

/** A message still in the outbox: shown at once, marked until the server confirms it. */
export function PendingMessage({ entry, author }: { entry: OutboxEntry; author?: string }) {
  const { outbox } = useSessionServices();
  const status = useLiveStatus();
  return (
    <li
      className="message"
      data-pending={entry.error ? "failed" : "waiting"}
      id={`message-${entry.id}`}
      data-own={author ? true : undefined}
    >
      <div className="bubble">
        {author ? <p className="message-author">{author}</p> : null}
        <p className="message-text">
          <LinkifiedText text={entry.content} />
        </p>
        <div className="message-meta">
          <time className="message-time">{entry.time}</time>
          {author ? null : <PendingOrigin />}
          {entry.error ? (
            <span className="pending-state pending-failed">
              <AlertIcon size={14} />
              Not sent: {entry.error}
              <button type="button" className="message-action" onClick={() => outbox.retry(entry.id)}>
                Retry
              </button>
              <button type="button" className="message-action" onClick={() => outbox.discard(entry.id)}>
                Discard
              </button>
            </span>
          ) : (
            <span className="pending-state">
              <ClockIcon size={14} />
              {status === "offline" ? "Pending — waiting for the connection" : (entry.notice ?? "Pending — sending…")}
            </span>
          )}
          <CopyButton text={entry.content} />
        </div>
      </div>
    </li>
  );
}
