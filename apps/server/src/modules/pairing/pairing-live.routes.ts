/**
 * The waiting device's own channel: anonymous, it proves itself with the secret of its pairing request
 * (sent as the first message, so it never shows in a URL or log) and hears approved/denied/expired once.
 */
import { PAIR_LIVE_CLOSE, PAIRING_API, type PairClientMessage, type PairServerMessage } from "@daysync/shared";
import type { FastifyInstance } from "fastify";
import type { WebSocket } from "ws";
import type { EventBus } from "../../events/event-bus.ts";
import type { PairingService } from "./pairing.service.ts";

const HELLO_TIMEOUT_MS = 10_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function parseWait(raw: unknown): PairClientMessage | null {
  try {
    const value = JSON.parse(String(raw)) as Partial<PairClientMessage>;
    if (value.type !== "wait" || typeof value.request_id !== "string" || typeof value.secret !== "string") return null;
    if (!UUID.test(value.request_id) || value.secret.length > 128) return null;
    return value as PairClientMessage;
  } catch {
    return null;
  }
}

export function pairingLiveRoutes(app: FastifyInstance, deps: { pairing: PairingService; bus: EventBus }) {
  const { pairing, bus } = deps;

  app.get(PAIRING_API.live, { websocket: true }, (socket: WebSocket, request) => {
    let finished = false;
    let stopNotices: (() => void) | undefined;
    let expiryTimer: ReturnType<typeof setTimeout> | undefined;
    // Looks run one after another, so a notice and the first look cannot both mint a token.
    let queue = Promise.resolve();

    const cleanup = () => {
      finished = true;
      clearTimeout(helloTimer);
      clearTimeout(expiryTimer);
      stopNotices?.();
    };
    const send = (message: PairServerMessage) => {
      if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
    };
    const finish = (message: PairServerMessage) => {
      if (finished) return;
      cleanup();
      send(message);
      socket.close(PAIR_LIVE_CLOSE.done, message.type);
    };

    const helloTimer = setTimeout(() => {
      cleanup();
      socket.close(PAIR_LIVE_CLOSE.badRequest, "Say which request to wait for");
    }, HELLO_TIMEOUT_MS);

    socket.once("message", (raw) => {
      clearTimeout(helloTimer);
      const wait = parseWait(raw);
      if (!wait) {
        cleanup();
        return socket.close(PAIR_LIVE_CLOSE.badRequest, "Expected a wait message");
      }
      const look = () => {
        queue = queue
          .then(async () => {
            if (finished) return;
            const outcome = await pairing.outcomeFor(wait.request_id, wait.secret);
            if (outcome) finish(outcome);
          })
          .catch((error) => {
            request.log.error({ err: error }, "pairing channel failed");
            finish({ type: "failed" });
          });
      };
      // Listen first, then look, so an answer given in between is not missed.
      stopNotices = bus.subscribePairing((notice) => {
        if (notice.requestId === wait.request_id) look();
      });
      look();
      queue = queue.then(async () => {
        if (finished) return;
        const left = await pairing.expiresIn(wait.request_id);
        send({ type: "waiting", expires_in: Math.max(0, left) });
        expiryTimer = setTimeout(look, Math.max(0, left) + 50);
        expiryTimer.unref();
      });
    });

    socket.on("close", cleanup);
  });
}
