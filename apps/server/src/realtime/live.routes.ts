/**
 * The live connection of a device: authenticated at the handshake, it replays what the device missed
 * (by per-user sequence number) and then forwards each change of the user's data, strictly in order.
 */
import { API, clientLiveMessageSchema, LIVE_CLOSE, type ServerLiveMessage } from "@daysync/shared";
import type { FastifyInstance } from "fastify";
import type { WebSocket } from "ws";
import type { Clock } from "../clock.ts";
import type { SocketLimits } from "../config/config.ts";
import type { Db } from "../db/database.ts";
import type { EventBus, UserChange } from "../events/event-bus.ts";
import { errorBody } from "../http/errors.ts";
import { refuseForeignOrigin } from "../http/origin.ts";
import type { SessionsRepository } from "../modules/accounts/sessions.repository.ts";
import { onClientMessage } from "./client-frames.ts";
import { replayChanges } from "./replay-changes.ts";

const HEARTBEAT_MS = 30_000;

/** One JSON text per change for all sockets of its user: the bus hands each listener the same change object. */
const frames = new WeakMap<UserChange, string>();
function frameOf(change: UserChange): string {
  let frame = frames.get(change);
  if (frame === undefined) {
    const message: ServerLiveMessage = { type: "event", seq: change.seq, event: change.event };
    frame = JSON.stringify(message);
    frames.set(change, frame);
  }
  return frame;
}

export function liveRoutes(
  app: FastifyInstance,
  deps: {
    db: Db;
    bus: EventBus;
    clock: Clock;
    sessions: Pick<SessionsRepository, "touch">;
    limits: Pick<SocketLimits, "livePerSession" | "livePerUser">;
  },
) {
  const { db, bus, clock, sessions, limits } = deps;
  const socketsBySession = new Map<string, Set<WebSocket>>();
  const socketCountByUser = new Map<string, number>();

  const stopSessionNotices = bus.subscribeSessions((notice) => {
    for (const socket of socketsBySession.get(notice.sessionId) ?? []) socket.close(LIVE_CLOSE.sessionRevoked, "Signed out");
  });

  const heartbeat = setInterval(() => {
    for (const sockets of socketsBySession.values()) {
      for (const socket of sockets as Set<WebSocket & { alive?: boolean }>) {
        if (socket.alive === false) socket.terminate();
        else {
          socket.alive = false;
          socket.ping();
        }
      }
    }
  }, HEARTBEAT_MS);
  heartbeat.unref();
  app.addHook("onClose", async () => {
    clearInterval(heartbeat);
    stopSessionNotices();
    for (const sockets of socketsBySession.values()) for (const s of sockets) s.close(1001, "Server shutting down");
  });

  app.get(
    API.live,
    {
      websocket: true,
      onRequest: refuseForeignOrigin,
      preValidation: async (request, reply) => {
        if (!request.auth) return reply.status(401).send(errorBody("unauthenticated", "Please sign in to continue."));
      },
    },
    (socket, request) => {
      const auth = request.auth;
      if (!auth) return socket.close(LIVE_CLOSE.unauthorized, "Not signed in");
      const { userId, sessionId } = auth;
      const sessionSockets = socketsBySession.get(sessionId) ?? new Set();
      const userSockets = socketCountByUser.get(userId) ?? 0;
      if (sessionSockets.size >= limits.livePerSession) {
        return socket.close(LIVE_CLOSE.tooManyConnections, "Too many live connections for this device");
      }
      if (userSockets >= limits.livePerUser) {
        return socket.close(LIVE_CLOSE.tooManyConnections, "Too many live connections for this account");
      }
      socketsBySession.set(sessionId, sessionSockets);
      sessionSockets.add(socket);
      socketCountByUser.set(userId, userSockets + 1);

      const live = socket as WebSocket & { alive?: boolean };
      live.alive = true;
      // A device with the app open may make no HTTP request for hours: its pings keep "last seen" current.
      const seen = () =>
        void sessions.touch(sessionId, clock.now()).catch((error) => request.log.warn({ err: error }, "last-seen update failed"));
      socket.on("pong", () => {
        live.alive = true;
        seen();
      });

      /** Highest seq this device has been sent; -1 until it says where to resume. */
      let lastSent = -1;
      let resuming = false;
      let queue = Promise.resolve();
      const enqueue = (work: () => Promise<void>) => {
        queue = queue.then(work).catch((error) => {
          request.log.error({ err: error }, "live connection failed");
          socket.close(1011, "Internal error");
        });
      };
      const send = (message: ServerLiveMessage) => {
        if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
      };

      const isOpen = () => socket.readyState === socket.OPEN;
      async function replay(since: number, upTo?: number): Promise<void> {
        lastSent = await replayChanges({ db, clock, userId, since, upTo, send, isOpen });
      }

      function deliver(change: UserChange): Promise<void> {
        if (lastSent < 0 || change.seq <= lastSent) return Promise.resolve();
        if (change.seq === lastSent + 1) {
          if (socket.readyState === socket.OPEN) socket.send(frameOf(change));
          lastSent = change.seq;
          return Promise.resolve();
        }
        // A change from another transaction arrived first: fill the gap from the log, in order.
        return replay(lastSent, change.seq);
      }

      const unsubscribe = bus.subscribe(userId, (change) => enqueue(() => deliver(change)));

      onClientMessage(socket, clientLiveMessageSchema, { unknownReason: "Unknown message", log: request.log }, (message) => {
        if (message.type === "ping") {
          seen();
          return send({ type: "pong" });
        }
        // Each replay is paced; a second one at once would only double the work for the same answer.
        if (resuming) return socket.close(LIVE_CLOSE.unknownMessage, "One resume at a time");
        resuming = true;
        enqueue(async () => {
          try {
            await replay(message.since);
            send({ type: "ready", seq: lastSent });
          } finally {
            resuming = false;
          }
        });
      });

      socket.on("close", () => {
        unsubscribe();
        sessionSockets.delete(socket);
        if (sessionSockets.size === 0) socketsBySession.delete(sessionId);
        const left = (socketCountByUser.get(userId) ?? 1) - 1;
        if (left > 0) socketCountByUser.set(userId, left);
        else socketCountByUser.delete(userId);
      });
    },
  );
}
