/**
 * The client end of /api/live, for any WebSocket (a browser's or `ws`): resumes by sequence number from a saved
 * position, hands frames over strictly one at a time and in order across reconnections, pings, and reconnects
 * with back-off; a close code decides between trying again and stopping (see `closeAction`).
 */
import { type ClientLiveMessage, LIVE_MAX_FRAME_BYTES, type LiveEvent, type ServerLiveMessage } from "@daysync/shared";
import { closeAction, type Frame, LIVE_TIMING, parseFrame, retryDelay } from "./protocol.ts";

/** Declared as a method, so a socket's own, richer event types fit (a browser's MessageEvent, ws's). */
type Handler<E> = { bivarianceHack(event: E): void }["bivarianceHack"];

/** What the client needs of a WebSocket: a browser's `WebSocket` and a `ws` WebSocket both are one. */
export interface LiveSocket {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  /** Ends the connection at once, without the closing handshake (`ws`); without it, `close` is used. */
  terminate?(): void;
  onopen: Handler<unknown> | null;
  onmessage: Handler<{ data: unknown }> | null;
  onclose: Handler<{ code: number; reason: string }> | null;
  onerror: Handler<unknown> | null;
}

const OPEN = 1;
/** Closes we initiate: the app stopped, or the socket stopped answering. */
const CLOSE_STOPPED = 1000;
const CLOSE_DROPPED = 4000;
/** What a socket that ends without a close frame reports. */
const CLOSE_ABNORMAL = 1006;

/** Where a (re)connection resumes: the last sequence number this device applied, 0 for none. */
export interface PositionStore {
  get(): number;
  set(seq: number): void;
}

/**
 * connecting: first attempt; online: resumed and current; offline: lost, retrying; busy: turned away by a server taking
 * sockets at its pace (1013), retrying shortly, while its HTTP routes still answer.
 */
export type LiveStatus = "connecting" | "online" | "offline" | "busy";

export interface LostConnection {
  code: number;
  reason: string;
  /** The socket closed before it opened: the handshake failed (a browser cannot tell a refused session from a network failure). */
  handshakeFailed: boolean;
  /** Failures in a row, this one included, since the last `ready`. */
  failures: number;
  /** Whether any connection of this client got as far as `ready`. */
  everReady: boolean;
}

/**
 * What the app does with the connection. Each handler may return a promise: the next frame waits for it, and
 * the position moves past a frame only once its handler is done (a handler that throws leaves it where it was).
 */
export interface LiveHandlers {
  /** One change after the position; `live` is false while a (re)connection replays what was missed. */
  onEvent?(event: LiveEvent, info: { seq: number; live: boolean }): void | Promise<void>;
  /** An event of a kind `LiveEvent` does not hold, unparsed (an encrypted discussion's: `roomLiveEventSchema`). */
  onOtherEvent?(event: unknown, info: { seq: number; live: boolean }): void | Promise<void>;
  /** Current up to `seq`. `resumedFrom` is the position it resumed from (0: none, so anything loaded before may be stale). */
  onReady?(info: { seq: number; resumedFrom: number; reconnected: boolean }): void | Promise<void>;
  /** Too far behind to replay: catch up some other way; the position becomes `seq` once this is done. */
  onReset?(seq: number): void | Promise<void>;
  onStatus?(status: LiveStatus): void;
  /** The connection closed or stopped answering; another attempt follows. */
  onLost?(lost: LostConnection): void;
  /** The server ended this session (4401, 4403): the client has stopped. */
  onSignedOut?(): void;
  /** A handler threw. The client goes on with the next frame unless this stops it. */
  onError(error: unknown): void;
}

export interface LiveClientOptions {
  /** A new socket to /api/live each time one is needed. */
  openSocket: () => LiveSocket;
  position: PositionStore;
  handlers: LiveHandlers;
  /** False when there is no network at all: the client waits for `reconnectNow` instead of trying. */
  canConnect?: () => boolean;
  /** Jitter source for the back-off, in [0, 1). */
  random?: () => number;
}

interface Connection {
  socket: LiveSocket;
  opened: boolean;
}

/** The server's answer to a message sent on the socket: stored (what the HTTP send answers), or refused as HTTP would. */
export type SendAnswer = Extract<ServerLiveMessage, { type: "sent" | "send_failed" }>;

/** The server's answer to a deletion on the socket: what `DELETE /api/messages/:id` answers, or its refusal (404…). */
export type DeleteAnswer = Extract<ServerLiveMessage, { type: "deleted" | "delete_failed" }>;

/** Any frame that answers one the client sent, by its `ref`. */
type Answer = SendAnswer | DeleteAnswer;
const isAnswer = (frame: Frame): frame is Answer =>
  frame.type === "sent" || frame.type === "send_failed" || frame.type === "deleted" || frame.type === "delete_failed";

/** No socket is current, or the message is larger than a frame may be: send it (or the deletion) another way (HTTP). */
export class SocketSendUnavailable extends Error {
  override readonly name = "SocketSendUnavailable";
}

/**
 * The socket went before the answer came: the message may or may not be stored (the deletion done); send it again,
 * same id (a deletion done already is then answered 404).
 */
export class SocketSendDropped extends Error {
  override readonly name = "SocketSendDropped";
}

interface PendingAnswer {
  connection: Connection;
  /** The answer types that may settle it: a frame of another type naming its ref settles nothing. */
  accepts: ReadonlySet<Answer["type"]>;
  resolve(answer: Answer): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

const frameBytes = (frame: string) => new TextEncoder().encode(frame).length;

export class LiveClient {
  private connection: Connection | null = null;
  private status: LiveStatus = "connecting";
  private stopped = true;
  private failures = 0;
  private everReady = false;
  /** False from (re)connect until ready: events meanwhile are a replay of what was missed. */
  private current = false;
  private resumedFrom = 0;
  /** Every frame's handling, and each resume, in order. */
  private work: Promise<void> = Promise.resolve();
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private pingTimer: ReturnType<typeof setInterval> | undefined;
  private pongTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly timing = LIVE_TIMING;
  /** Frames sent by `ask`, by ref, until their answer. */
  private readonly pending = new Map<string, PendingAnswer>();
  private answerRefs = 0;

  constructor(private readonly options: LiveClientOptions) {}

  /**
   * Sends a message to the user's days as a frame on the current socket (issue 47); `body` is what `POST /api/messages`
   * takes. Rejects with SocketSendUnavailable when there is no current socket or the frame would be too large, and with
   * SocketSendDropped when the socket goes (or stays silent) before answering.
   */
  sendMessage(body: unknown): Promise<SendAnswer> {
    return this.ask((ref) => ({ type: "send", ref, body }), ["sent", "send_failed"]);
  }

  /**
   * Deletes a message of the user's days by a frame on the current socket (issue 47), as `DELETE /api/messages/:id`
   * would; rejects as `sendMessage` does.
   */
  deleteMessage(id: string): Promise<DeleteAnswer> {
    return this.ask((ref) => ({ type: "delete", ref, id }), ["deleted", "delete_failed"]);
  }

  /** Sends the frame `frameFor` makes with a new ref and resolves with the answer naming that ref. */
  private ask<T extends Answer["type"]>(
    frameFor: (ref: string) => ClientLiveMessage,
    types: readonly T[],
  ): Promise<Extract<Answer, { type: T }>> {
    const connection = this.connection;
    if (!connection || this.status !== "online" || connection.socket.readyState !== OPEN) {
      return Promise.reject(new SocketSendUnavailable("not connected"));
    }
    const ref = String(++this.answerRefs);
    const frame = JSON.stringify(frameFor(ref));
    if (frameBytes(frame) > LIVE_MAX_FRAME_BYTES) return Promise.reject(new SocketSendUnavailable("too large for a frame"));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.settle(ref, new SocketSendDropped("no answer")), this.timing.pongTimeoutMs * 2);
      const accepts: ReadonlySet<Answer["type"]> = new Set(types);
      // `settle` resolves only with an answer whose type is in `accepts`, that is one of `T`.
      this.pending.set(ref, { connection, accepts, resolve: resolve as (answer: Answer) => void, reject, timer });
      connection.socket.send(frame);
    });
  }

  private settle(ref: string, outcome: Answer | Error): void {
    const pending = this.pending.get(ref);
    if (!pending || (!(outcome instanceof Error) && !pending.accepts.has(outcome.type))) return;
    this.pending.delete(ref);
    clearTimeout(pending.timer);
    if (outcome instanceof Error) pending.reject(outcome);
    else pending.resolve(outcome);
  }

  /** The frames still waiting on `connection` will get no answer: each is dropped, to be sent again. */
  private dropPending(connection: Connection | null): void {
    for (const [ref, pending] of this.pending) {
      if (pending.connection === connection) this.settle(ref, new SocketSendDropped("connection lost"));
    }
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.closeSocket(CLOSE_STOPPED);
  }

  getStatus = (): LiveStatus => this.status;

  /** The network is back: try at once, with the back-off started over. */
  reconnectNow(): void {
    this.failures = 0;
    if (!this.connection) this.connect();
  }

  /** Give up on the socket now (a socket whose network is gone may take minutes to report its close) and retry. */
  dropConnection(): void {
    if (this.stopped) return;
    this.closeSocket(CLOSE_DROPPED);
    this.lost(CLOSE_ABNORMAL, "", false);
  }

  /** Make sure the connection still works: a ping when there is one, an attempt at once when there is none. */
  checkNow(): void {
    if (this.stopped) return;
    if (this.connection) this.ping();
    else this.reconnectNow();
  }

  private setStatus(status: LiveStatus): void {
    if (this.status === status) return;
    this.status = status;
    this.options.handlers.onStatus?.(status);
  }

  private connect(): void {
    if (this.stopped || this.connection) return;
    clearTimeout(this.retryTimer);
    if (this.options.canConnect && !this.options.canConnect()) {
      this.setStatus("offline");
      return;
    }
    const socket = this.options.openSocket();
    const connection: Connection = { socket, opened: false };
    this.connection = connection;
    // Kept after the socket is let go: `ws` throws an error event that nobody listens to.
    socket.onerror = () => {};
    socket.onopen = () => {
      connection.opened = true;
      this.current = false;
      this.pingTimer = setInterval(() => this.ping(), this.timing.pingEveryMs);
      // After what is being handled: the position it resumes from is then exact.
      this.enqueue(() => {
        if (this.connection !== connection) return;
        this.resumedFrom = this.options.position.get();
        this.send({ type: "resume", since: this.resumedFrom });
      });
    };
    socket.onmessage = (message) => {
      // Anything that arrives shows the connection works.
      clearTimeout(this.pongTimer);
      const frame = parseFrame(message.data);
      // A send's or a deletion's answer is its caller's at once, not behind the events being applied.
      if (frame && isAnswer(frame)) this.settle(frame.ref, frame);
      else if (frame) this.enqueue(() => this.handle(frame, connection));
    };
    socket.onclose = (event) => {
      this.dropPending(connection);
      if (this.connection !== connection) return;
      this.clearSocketTimers();
      this.connection = null;
      this.lost(event.code, event.reason, !connection.opened);
    };
  }

  private lost(code: number, reason: string, handshakeFailed: boolean): void {
    if (this.stopped) return;
    const action = closeAction(code);
    if (action === "signed-out") {
      this.stop();
      this.options.handlers.onSignedOut?.();
      return;
    }
    this.failures += 1;
    this.setStatus(action === "retry-soon" ? "busy" : "offline");
    this.options.handlers.onLost?.({ code, reason, handshakeFailed, failures: this.failures, everReady: this.everReady });
    if (this.stopped) return;
    clearTimeout(this.retryTimer);
    const minCeiling = { "retry-later": this.timing.backoffMaxMs, "retry-soon": this.timing.busyBackoffMs, retry: 0 }[action];
    const delay = retryDelay(this.failures, this.timing, this.options.random ?? Math.random, minCeiling);
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  private enqueue(task: () => void | Promise<void>): void {
    this.work = this.work.then(() => (this.stopped ? undefined : task())).catch((error: unknown) => this.options.handlers.onError(error));
  }

  private async handle(frame: Frame, connection: Connection): Promise<void> {
    const { position, handlers } = this.options;
    switch (frame.type) {
      case "unknown-event":
        // Counted past, so a resume neither asks for it again nor misses what follows.
        if (frame.seq <= position.get()) return;
        await handlers.onOtherEvent?.(frame.event, { seq: frame.seq, live: this.current && this.connection === connection });
        position.set(frame.seq);
        return;
      case "event":
        if (frame.seq <= position.get()) return;
        await handlers.onEvent?.(frame.event, { seq: frame.seq, live: this.current && this.connection === connection });
        position.set(frame.seq);
        return;
      case "ready": {
        // A ready of a socket already given up is followed by the next socket's own.
        if (this.connection !== connection) return;
        const reconnected = this.everReady && this.failures > 0;
        this.current = true;
        this.everReady = true;
        this.failures = 0;
        this.setStatus("online");
        await handlers.onReady?.({ seq: frame.seq, resumedFrom: this.resumedFrom, reconnected });
        position.set(frame.seq);
        return;
      }
      case "reset":
        if (this.connection !== connection) return;
        await handlers.onReset?.(frame.seq);
        position.set(frame.seq);
        return;
      case "pong":
      case "sent":
      case "send_failed":
      case "deleted":
      case "delete_failed":
        return;
    }
  }

  private send(message: ClientLiveMessage): void {
    const socket = this.connection?.socket;
    if (socket?.readyState === OPEN) socket.send(JSON.stringify(message));
  }

  private ping(): void {
    if (this.connection?.socket.readyState !== OPEN) return;
    clearTimeout(this.pongTimer);
    this.send({ type: "ping" });
    this.pongTimer = setTimeout(() => this.dropConnection(), this.timing.pongTimeoutMs);
  }

  private closeSocket(code: number): void {
    this.clearSocketTimers();
    this.dropPending(this.connection);
    const socket = this.connection?.socket;
    this.connection = null;
    if (!socket) return;
    socket.onopen = null;
    socket.onmessage = null;
    socket.onclose = null;
    try {
      if (socket.terminate) socket.terminate();
      else socket.close(code);
    } catch {
      // already closing
    }
  }

  private clearSocketTimers(): void {
    clearInterval(this.pingTimer);
    clearTimeout(this.pongTimer);
  }
}
