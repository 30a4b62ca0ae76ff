import { PageSpinner } from "../../../components/ui/spinner.tsx";
import { describeError } from "../../../lib/api-errors.ts";

/** The message area while its messages load, or (`offline`) wait for the connection: this device has none of them. */
export function MessagesLoading({ offline = false }: { offline?: boolean }) {
  return (
    <div className="message-scroll">
      {offline ? (
        <div className="message-empty" role="status">
          <p>Not on this device yet</p>
          <span>These messages load when the connection is back.</span>
        </div>
      ) : (
        <PageSpinner label="Loading messages" />
      )}
    </div>
  );
}

/** The message area when its messages could not be loaded, with a retry. */
export function MessagesLoadError({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  return (
    <div className="message-scroll">
      <div className="message-empty" role="alert">
        <p>{describeError(error)}</p>
        <button type="button" className="btn btn-secondary btn-sm" onClick={onRetry}>
          Try again
        </button>
      </div>
    </div>
  );
}
