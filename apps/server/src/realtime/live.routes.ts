/**
 * The live connection of a device: authenticated at the handshake, it replays what the device missed
 * (by per-user sequence number) and then forwards each change of the user's data, strictly in order.
 */
import { API, clientLiveMessageSchema, LIVE_CLOSE, type ServerFrame } from "@daysync/shared";
import type { FastifyInstance } from "fastify";
import type { WebSocket } from "ws";
import type { Presence } from "../adapters/presence.ts";
import type { Clock } from "../clock.ts";
import type { SocketLimits } from "../config/config.ts";
import { batchedReads } from "../db/batched-reads.ts";
import { type EventBus, subscribeUserChanges, type UserChange } from "../events/event-bus.ts";
import type { ChangesRepository } from "../feed/changes.repository.ts";
import { onClientMessage } from "../http/client-frames.ts";
import { errorBody } from "../http/errors.ts";
import { refuseForeignOrigin } from "../http/origin.ts";
import type { SessionsRepository } from "../modules/accounts/index.ts";
import type { OwnDelete, OwnSend } from "../modules/messages/index.ts";
import { acceptGate } from "./accept-gate.ts";
import { startHeartbeat } from "./heartbeat.ts";
import type { ReplayRepositories } from "./replay.ts";
import { type ReplayPages, replayChanges } from "./replay-changes.ts";
import { answerDelete } from "./socket-delete.ts";
import { answerSend } from "./socket-send.ts";
import { holdWritesForTurn } from "./turn-writes.ts";

const HEARTBEAT_MS = 30_000;
/** Users whose sequence one query reads. */
const SEQ_CHECK_BATCH = 500;

/** One JSON text per change for all sockets of its user: the bus hands each listener the same change object. */
const frames = new WeakMap<UserChange, string>();
function frameOf(change: UserChange): string {
  let frame = frames.get(change);
  if (frame === undefined) {
    const message: ServerFrame = { type: "event", seq: change.seq, event: change.event };
    frame = JSON.stringify(message);
    frames.set(change, frame);
  }
  return frame;
}

export function liveRoutes(
  app: FastifyInstance,
  deps: {
    changes: ChangesRepository;
    /** What a resume reads the current state from. */
    repositories: ReplayRepositories;
    bus: EventBus;
    clock: Clock;
    sessions: Pick<SessionsRepository, "markSeen">;
    presence: Presence;
    limits: Pick<SocketLimits, "livePerSession" | "livePerUser" | "liveAcceptPerSecond">;
    /** How often open sockets are compared with the database, for changes the bus lost. */
    seqCheckMs: number;
    /** A `send` frame goes where `POST /api/messages` goes (issue 47). */
    send: OwnSend;
    /** A `delete` frame goes where `DELETE /api/messages/:id` goes (issue 47). */
    remove: OwnDelete;
  },
) {
  const { changes, repositories, bus, clock, sessions, presence, limits } = deps;
  const socketsBySession = new Map<string, Set<WebSocket>>();
  const socketCountByUser = new Map<string, number>();
  const userChanges = subscribeUserChanges(bus);
  /** Per user, each open socket's "the database is at seq N" handler. */
  const seqCheckers = new Map<string, Set<(current: number) => void>>();
  const gate = acceptGate(limits.liveAcceptPerSecond);
  const readSeq = batchedReads((userIds) => changes.currentSeqs(userIds));
  const currentSeq = async (userId: string) => (await readSeq(userId)) ?? 0;
  const pages: ReplayPages = new Map();

  const stopSessionNotices = bus.subscribe("session.revoked", (notice) => {
    for (const socket of socketsBySession.get(notice.sessionId) ?? []) socket.close(LIVE_CLOSE.sessionRevoked, "Signed out");
  });

  /**
   * The bus only says that something changed, and between processes it can drop a message (Redis restarted,
   * a connection broke). One query per check finds every open user whose log moved past what was sent.
   */
  let checking = false;
  async function checkSequences(): Promise<void> {
    if (checking || seqCheckers.size === 0) return;
    checking = true;
    try {
      const userIds = [...seqCheckers.keys()];
      for (let i = 0; i < userIds.length; i += SEQ_CHECK_BATCH) {
        for (const [userId, seq] of await changes.currentSeqs(userIds.slice(i, i + SEQ_CHECK_BATCH))) {
          for (const check of seqCheckers.get(userId) ?? []) check(seq);
        }
      }
    } finally {
      checking = false;
    }
  }
  const runSeqCheck = () => void checkSequences().catch((error) => app.log.warn({ err: error }, "sequence check failed"));
  const seqTimer = setInterval(runSeqCheck, deps.seqCheckMs);
  seqTimer.unref();
  const stopReconnects = bus.onReconnect(runSeqCheck);

  const heartbeat = startHeartbeat(
    function* () {
      for (const sockets of socketsBySession.values()) yield* sockets;
    },
    { everyMs: HEARTBEAT_MS },
  );
  /** Once the server stops, sockets closing write nothing (the database closes after them). */
  let closing = false;
  /** Last-seen writes of sockets that closed just before the stop, awaited before the database closes. */
  const seenWrites = new Set<Promise<void>>();
  app.addHook("preClose", async () => {
    closing = true;
  });
  app.addHook("onClose", async () => {
    heartbeat.stop();
    clearInterval(seqTimer);
    stopSessionNotices();
    stopReconnects();
    userChanges.close();
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
      if (!gate.tryAccept()) return socket.close(LIVE_CLOSE.tryAgainShortly, "Try again shortly");
      const sessionSockets = socketsBySession.get(sessionId) ?? new Set();
      const userSockets = socketCountByUser.get(userId) ?? 0;
      if (sessionSockets.size >= limits.livePerSession) {
        return socket.close(LIVE_CLOSE.tooManyConnections, "Too many live connections for this device");
      }
      if (userSockets >= limits.livePerUser) {
        return socket.close(LIVE_CLOSE.tooManyConnections, "Too many live connections for this account");
      }
      // A device with the app open may make no HTTP request for hours: it is "seen now" while a socket is open
      // (see `Presence`), and its last-seen time is written when its last one goes.
      if (sessionSockets.size === 0) presence.opened(sessionId);
      socketsBySession.set(sessionId, sessionSockets);
      sessionSockets.add(socket);
      socketCountByUser.set(userId, userSockets + 1);
      heartbeat.watch(socket);

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
      const send = (message: ServerFrame) => {
        if (socket.readyState !== socket.OPEN) return;
        socket.send(JSON.stringify(message));
        // Signed out on another process whose notice the bus lost: the change log says so too.
        if (message.type === "event" && message.event.kind === "device.signed_out" && message.event.id === sessionId) {
          socket.close(LIVE_CLOSE.sessionRevoked, "Signed out");
        }
      };

      const isOpen = () => socket.readyState === socket.OPEN;
      async function replay(since: number, upTo?: number): Promise<void> {
        lastSent = await replayChanges({ pages, changes, currentSeq, repositories, clock, userId, since, upTo, send, isOpen });
      }

      function deliver(change: UserChange): Promise<void> {
        if (lastSent < 0 || change.seq <= lastSent) return Promise.resolve();
        if (change.seq === lastSent + 1) {
          if (socket.readyState === socket.OPEN) {
            holdWritesForTurn(request.raw.socket);
            socket.send(frameOf(change));
          }
          lastSent = change.seq;
          return Promise.resolve();
        }
        // A change from another transaction arrived first: fill the gap from the log, in order.
        return replay(lastSent, change.seq);
      }

      const unsubscribe = userChanges.subscribe(userId, (change) => enqueue(() => deliver(change)));
      const checkers = seqCheckers.get(userId) ?? new Set();
      seqCheckers.set(userId, checkers);
      const checkSeq = (current: number) => {
        if (lastSent >= 0 && current > lastSent) {
          // Re-read in the queue: a change delivered meanwhile is not sent twice.
          enqueue(async () => {
            if (lastSent >= 0 && current > lastSent) await replay(lastSent, current);
          });
        }
      };
      checkers.add(checkSeq);

      onClientMessage(socket, clientLiveMessageSchema, { unknownReason: "Unknown message", log: request.log }, (message) => {
        if (message.type === "ping") return send({ type: "pong" });
        // Beside the replay and the events, not behind them: its answer names it, and its event comes in order anyway.
        if (message.type === "send") return void answerSend(deps.send, request, message).then(send);
        if (message.type === "delete") return void answerDelete(deps.remove, request, message).then(send);
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
        checkers.delete(checkSeq);
        if (checkers.size === 0) seqCheckers.delete(userId);
        sessionSockets.delete(socket);
        // Once the server stops, its presence goes as a whole (the adapters' close) and nothing is written.
        if (sessionSockets.size === 0) {
          socketsBySession.delete(sessionId);
          if (!closing) {
            presence.closed(sessionId);
            const write = sessions
              .markSeen(sessionId, clock.now())
              .catch((error) => request.log.warn({ err: error }, "last-seen update failed"))
              .finally(() => seenWrites.delete(write));
            seenWrites.add(write);
          }
        }
        const left = (socketCountByUser.get(userId) ?? 1) - 1;
        if (left > 0) socketCountByUser.set(userId, left);
        else socketCountByUser.delete(userId);
      });
    },
  );
  return {
    /** Live sockets open on this process now. */
    openSockets(): number {
      let open = 0;
      for (const count of socketCountByUser.values()) open += count;
      return open;
    },
    /** Resolves once the last-seen writes already started have finished. */
    settled: async (): Promise<void> => {
      await Promise.all(seenWrites);
    },
  };
}
