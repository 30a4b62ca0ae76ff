import { AlertIcon, ClockIcon } from "../../../components/ui/icons.tsx";
import type { OutboxEntry } from "../../../lib/outbox.ts";
import { useDashboard } from "../shell/dashboard-context.ts";
import { useLiveStatus } from "../shell/use-live-status.ts";
import { CopyButton } from "./copy-button.tsx";
import { LinkifiedText } from "./linkified-text.tsx";

/** A message still in the outbox: shown at once, marked until the server confirms it. */
export function PendingMessage({ entry }: { entry: OutboxEntry }) {
  const { outbox } = useDashboard();
  const status = useLiveStatus();
  return (
    <li className="message" data-pending={entry.error ? "failed" : "waiting"} id={`message-${entry.id}`}>
      <div className="bubble">
        <p className="message-text">
          <LinkifiedText text={entry.content} />
        </p>
        <div className="message-meta">
          <time className="message-time">{entry.time}</time>
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
              {status === "offline" ? "Pending — waiting for the connection" : (entry.notice ?? "Sending…")}
            </span>
          )}
          <CopyButton text={entry.content} />
        </div>
      </div>
    </li>
  );
}
