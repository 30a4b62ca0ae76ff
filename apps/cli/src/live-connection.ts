/**
 * The command line's binding of the live client (@daysync/live-client) for `watch`: a `ws` socket with the session
 * cookie, connection news for a person on standard error, and a promise that ends with the connection.
 */
import { LiveClient, type LiveHandlers, type PositionStore } from "@daysync/live-client";
import { API, SESSION_COOKIE } from "@daysync/shared";
import WebSocket from "ws";
import { USER_AGENT } from "./api-client.ts";
import { networkCause, signedOut, unreachable } from "./errors.ts";

export interface LiveWatch {
  /** The last sequence number handled: where a (re)connection resumes. */
  position: PositionStore;
  onEvent: NonNullable<LiveHandlers["onEvent"]>;
  onReady: NonNullable<LiveHandlers["onReady"]>;
  onReset: NonNullable<LiveHandlers["onReset"]>;
  /** Connection news for a person (lost, back). */
  onNotice(text: string): void;
}

/** Runs until `stop` is called (resolves), the session is refused (rejects with "signed out") or a handler fails (rejects). */
export function runLive(server: string, token: string, watch: LiveWatch) {
  let finish: (error?: unknown) => void = () => {};
  const done = new Promise<void>((resolve, reject) => {
    finish = (error) => {
      client.stop();
      if (error) reject(error);
      else resolve();
    };
  });

  /** Why the current socket failed, as far as `ws` says before it closes. */
  let cause = "";
  function openSocket() {
    cause = "";
    const ws = new WebSocket(`${server.replace(/^http/, "ws")}${API.live}`, {
      // No Origin header: the server lets clients that are not browsers in on their cookie alone.
      headers: { cookie: `${SESSION_COOKIE}=${encodeURIComponent(token)}`, "user-agent": USER_AGENT },
    });
    ws.on("unexpected-response", (_req, res) => {
      if (res.statusCode === 401) return finish(signedOut(server));
      cause = `the server answered ${res.statusCode}`;
      ws.terminate();
    });
    ws.on("error", (error) => {
      cause ||= networkCause(error);
    });
    return ws;
  }

  const client = new LiveClient({
    openSocket,
    position: watch.position,
    handlers: {
      onEvent: watch.onEvent,
      onReady(ready) {
        if (ready.reconnected) watch.onNotice("Reconnected.");
        return watch.onReady(ready);
      },
      onReset: watch.onReset,
      onLost({ code, reason, failures, everReady }) {
        if (failures !== 1) return;
        // Not even the first connection worked: most likely a wrong address or a server that is down.
        if (!everReady) void probe();
        const why = cause || reason || (code === 1005 || code === 1006 ? "connection dropped" : `closed with ${code}`);
        watch.onNotice(
          everReady
            ? `The connection to ${server} was lost (${why}); reconnecting…`
            : `Cannot open the live connection to ${server} (${why}); retrying…`,
        );
      },
      onSignedOut: () => finish(signedOut(server)),
      onError: (error) => finish(error),
    },
  });

  /** Before the first connection: fail at once with "cannot reach" instead of retrying an address that never worked. */
  async function probe() {
    try {
      await fetch(`${server}/api/health`, { signal: AbortSignal.timeout(10_000) });
    } catch (error) {
      finish(unreachable(server, networkCause(error)));
    }
  }

  /** Resolves when Ctrl+C (SIGINT) or SIGTERM stops it, or as `done` does. */
  async function untilInterrupted() {
    const stop = () => finish();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    try {
      await done;
    } finally {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
    }
  }

  client.start();
  // `checkNow`: the server answered another request, so a connection waiting out its back-off tries at once.
  return { done, stop: () => finish(), checkNow: () => client.checkNow(), untilInterrupted };
}
