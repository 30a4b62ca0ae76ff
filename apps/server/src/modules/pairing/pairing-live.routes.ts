/**
 * The waiting device's own channel: anonymous, it proves itself with the secret of its pairing request
 * (sent as the first message, so it never shows in a URL or log) and hears approved/denied/expired once.
 * The same channel serves a signed-in device watching its Add a device offer (`watch`, proven by its session
 * cookie), which hears once that a device opened it (`claimed`), or that it expired; signed out meanwhile, its
 * socket closes (`signedOut`) as its live socket does.
 */
import { PAIR_LIVE_CLOSE, PAIRING_API, type PairServerMessage, pairClientMessageSchema } from "@daysync/shared";
import type { FastifyInstance } from "fastify";
import type { WebSocket } from "ws";
import type { SocketLimits } from "../../config/config.ts";
import type { EventBus } from "../../events/event-bus.ts";
import { onClientMessage } from "../../http/client-frames.ts";
import { refuseForeignOrigin } from "../../http/origin.ts";
import type { PairingService } from "./pairing.service.ts";

const HELLO_TIMEOUT_MS = 10_000;

/** `limits.pairPerAddress`: open waiting sockets per client address; anonymous, so bounded by where they come from. */
export function pairingLiveRoutes(
  app: FastifyInstance,
  deps: { pairing: PairingService; bus: EventBus; limits: Pick<SocketLimits, "pairPerAddress"> },
) {
  const { pairing, bus, limits } = deps;
  const socketsByAddress = new Map<string, number>();

  app.get(PAIRING_API.live, { websocket: true, onRequest: refuseForeignOrigin }, (socket: WebSocket, request) => {
    const address = request.ip;
    const open = socketsByAddress.get(address) ?? 0;
    if (open >= limits.pairPerAddress) {
      return socket.close(PAIR_LIVE_CLOSE.tooManyConnections, "Too many waiting devices from this address");
    }
    socketsByAddress.set(address, open + 1);
    socket.on("close", () => {
      const left = (socketsByAddress.get(address) ?? 1) - 1;
      if (left > 0) socketsByAddress.set(address, left);
      else socketsByAddress.delete(address);
    });

    let finished = false;
    let waiting = false;
    let stopNotices: (() => void) | undefined;
    let stopSessionNotices: (() => void) | undefined;
    let expiryTimer: ReturnType<typeof setTimeout> | undefined;
    // Looks run one after another, so a notice and the first look cannot both mint a token.
    let queue = Promise.resolve();

    const cleanup = () => {
      finished = true;
      clearTimeout(helloTimer);
      clearTimeout(expiryTimer);
      stopNotices?.();
      stopSessionNotices?.();
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

    const options = { unknownReason: "Expected a wait or watch message", log: request.log };
    onClientMessage(socket, pairClientMessageSchema, options, (message) => {
      if (waiting) return socket.close(PAIR_LIVE_CLOSE.unknownMessage, "Already waiting");
      waiting = true;
      clearTimeout(helloTimer);
      const requestId = message.type === "wait" ? message.request_id : message.offer_id;
      const watcher = message.type === "watch" ? request.auth : null;
      if (watcher) {
        stopSessionNotices = bus.subscribe("session.revoked", (notice) => {
          if (notice.sessionId !== watcher.sessionId || finished) return;
          cleanup();
          socket.close(PAIR_LIVE_CLOSE.signedOut, "Signed out");
        });
      }
      const outcomeNow = () =>
        message.type === "wait" ? pairing.outcomeFor(requestId, message.secret) : pairing.offerOutcomeFor(requestId, request.auth);
      const look = () => {
        queue = queue
          .then(async () => {
            if (finished) return;
            const outcome = await outcomeNow();
            // A typed code's exchange step leaves the channel open; every other answer ends it.
            if (outcome?.type === "exchange") send(outcome);
            else if (outcome) finish(outcome);
          })
          .catch((error) => {
            request.log.error({ err: error }, "pairing channel failed");
            finish({ type: "failed" });
          });
      };
      // Listen first, then look, so an answer given in between is not missed.
      stopNotices = bus.subscribe("pairing.decided", (notice) => {
        if (notice.requestId === requestId) look();
      });
      look();
      queue = queue
        .then(async () => {
          if (finished) return;
          const left = await pairing.expiresIn(requestId);
          send({ type: "waiting", expires_in: Math.max(0, left) });
          expiryTimer = setTimeout(look, Math.max(0, left) + 50);
          expiryTimer.unref();
        })
        .catch((error) => {
          request.log.error({ err: error }, "pairing channel failed");
          finish({ type: "failed" });
        });
    });

    socket.on("close", cleanup);
  });
}
