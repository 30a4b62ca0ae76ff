/** One WebSocket per signed-in tab to /api/live: resume by sequence, reconnect with backoff, ping. */
import {
  API,
  type ClientLiveMessage,
  LIVE_CLOSE,
  type LiveEvent,
  liveEventEnvelopeSchema,
  type ServerLiveMessage,
  serverLiveMessageSchema,
} from "@daysync/shared";
import type { QueryClient } from "@tanstack/react-query";
import { applySavedMessage, removeMessages, renameDevice, setUser, upsertDay } from "./cache-updates.ts";
import { applyDiscussionMessage, closeDiscussion, removeDiscussionMessages, upsertDiscussion } from "./discussion-cache.ts";
import { queryKeys } from "./query-keys.ts";
import { readStorage, writeStorage } from "./storage.ts";

/** connecting: first attempt; online: resumed and current; offline: lost, retrying. */
export type LiveStatus = "connecting" | "online" | "offline";

const PING_EVERY_MS = 20_000;
const PONG_TIMEOUT_MS = 10_000;
const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 30_000;

const seqInMemory = new Map<string, number>();
const seqStorageKey = (userId: string) => `daysync:live-seq:${userId}`;

/** Last sequence number this browser applied for the user, 0 for none. */
export function lastSeq(userId: string): number {
  const inMemory = seqInMemory.get(userId);
  if (inMemory !== undefined) return inMemory;
  const stored = Number(readStorage(seqStorageKey(userId)));
  return Number.isSafeInteger(stored) && stored > 0 ? stored : 0;
}

function saveSeq(userId: string, seq: number): void {
  seqInMemory.set(userId, seq);
  writeStorage(seqStorageKey(userId), String(seq));
}

function liveUrl(): string {
  const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${window.location.host}${API.live}`;
}

/** A frame as read: one of the protocol's, or an event of a kind this app does not know yet (a newer server). */
type Frame = ServerLiveMessage | { type: "unknown-event"; seq: number };

function parse(data: unknown): Frame | null {
  if (typeof data !== "string") return null;
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return null;
  }
  const frame = serverLiveMessageSchema.safeParse(value);
  if (frame.success) return frame.data;
  const envelope = liveEventEnvelopeSchema.safeParse(value);
  return envelope.success ? { type: "unknown-event", seq: envelope.data.seq } : null;
}

export function applyLiveEvent(queryClient: QueryClient, event: LiveEvent): void {
  switch (event.kind) {
    case "day.upserted":
      upsertDay(queryClient, event.day);
      break;
    case "message.created":
      applySavedMessage(queryClient, event.message, event.day);
      break;
    case "messages.deleted":
      removeMessages(queryClient, event.ids);
      break;
    case "user.updated":
      setUser(queryClient, event.user);
      break;
    case "device.signed_in":
    case "device.signed_out":
      void queryClient.invalidateQueries({ queryKey: queryKeys.devices });
      break;
    case "device.renamed":
      renameDevice(queryClient, event.id, event.name);
      void queryClient.invalidateQueries({ queryKey: queryKeys.devices });
      break;
    case "discussion.upserted":
      upsertDiscussion(queryClient, event.discussion, event.members);
      break;
    case "discussion.closed":
      closeDiscussion(queryClient, event.id, event.reason);
      break;
    case "discussion.message.created":
      applyDiscussionMessage(queryClient, event.message, event.discussion);
      break;
    case "discussion.messages.deleted":
      removeDiscussionMessages(queryClient, event.discussion_id, event.ids);
      break;
  }
}

export interface LiveConnectionOptions {
  userId: string;
  queryClient: QueryClient;
  /** The device is current again (after a (re)connect): a good moment to flush the outbox. */
  onReady?: () => void;
  /** The server closed with 4401/4403: this tab is no longer signed in. */
  onSessionEnded?: () => void;
}

export class LiveConnection {
  private ws: WebSocket | null = null;
  private status: LiveStatus = "connecting";
  private readonly listeners = new Set<() => void>();
  private readonly eventListeners = new Set<(event: LiveEvent, live: boolean) => void>();
  /** False from (re)connect until ready: events meanwhile are a replay of what was missed. */
  private current = false;
  private attempt = 0;
  private stopped = true;
  private resumedFrom = 0;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private pingTimer: ReturnType<typeof setInterval> | undefined;
  private pongTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly options: LiveConnectionOptions) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    window.addEventListener("online", this.handleOnline);
    window.addEventListener("offline", this.handleOffline);
    document.addEventListener("visibilitychange", this.handleVisibility);
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    window.removeEventListener("online", this.handleOnline);
    window.removeEventListener("offline", this.handleOffline);
    document.removeEventListener("visibilitychange", this.handleVisibility);
    clearTimeout(this.reconnectTimer);
    this.teardownSocket(1000);
  }

  getStatus = (): LiveStatus => this.status;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Hears each applied event; `live` is false for events replayed after a (re)connect. */
  onEvent = (listener: (event: LiveEvent, live: boolean) => void): (() => void) => {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  };

  private setStatus(status: LiveStatus): void {
    if (this.status === status) return;
    this.status = status;
    for (const listener of this.listeners) listener();
  }

  private connect(): void {
    if (this.stopped || this.ws) return;
    clearTimeout(this.reconnectTimer);
    if (!navigator.onLine) {
      this.setStatus("offline");
      return; // the "online" event reconnects
    }
    let opened = false;
    const ws = new WebSocket(liveUrl());
    this.ws = ws;
    ws.onopen = () => {
      opened = true;
      this.current = false;
      this.resumedFrom = lastSeq(this.options.userId);
      this.send({ type: "resume", since: this.resumedFrom });
      this.pingTimer = setInterval(() => this.ping(), PING_EVERY_MS);
    };
    ws.onmessage = (e) => {
      const message = parse(e.data);
      if (message) this.handleMessage(message);
    };
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.clearSocketTimers();
      this.ws = null;
      if (e.code === LIVE_CLOSE.unauthorized || e.code === LIVE_CLOSE.sessionRevoked) {
        this.stop();
        this.options.onSessionEnded?.();
        return;
      }
      if (e.code === LIVE_CLOSE.tooManyConnections) {
        // Other tabs or devices hold every live socket allowed: ask again rarely (or when the tab is shown), not at once.
        this.setStatus("offline");
        this.scheduleReconnect(BACKOFF_MAX_MS);
        return;
      }
      // Anything else, a refused frame (1007/1008) included, is a network failure or a bug of ours: retry with backoff.
      // A refused handshake looks like any network failure; ask the API whether the session still exists.
      if (!opened && this.attempt >= 1) void this.options.queryClient.invalidateQueries({ queryKey: queryKeys.me });
      this.setStatus("offline");
      this.scheduleReconnect();
    };
  }

  private handleMessage(message: Frame): void {
    const { userId, queryClient } = this.options;
    switch (message.type) {
      case "unknown-event":
        // Counted past, so a resume neither asks for it again nor misses what follows.
        if (message.seq > lastSeq(userId)) saveSeq(userId, message.seq);
        return;
      case "event":
        if (message.seq <= lastSeq(userId)) return;
        applyLiveEvent(queryClient, message.event);
        saveSeq(userId, message.seq);
        for (const listener of this.eventListeners) listener(message.event, this.current);
        return;
      case "ready":
        saveSeq(userId, message.seq);
        // Without a sequence to resume from, the HTTP load may have raced with changes: load once more.
        if (this.resumedFrom === 0) void queryClient.invalidateQueries({ predicate: (q) => q.queryKey[0] !== "me" });
        this.becameCurrent();
        return;
      case "reset":
        saveSeq(userId, message.seq);
        void queryClient.invalidateQueries();
        this.becameCurrent();
        return;
      case "pong":
        clearTimeout(this.pongTimer);
        return;
    }
  }

  private becameCurrent(): void {
    this.current = true;
    this.attempt = 0;
    this.setStatus("online");
    this.options.onReady?.();
  }

  private send(message: ClientLiveMessage): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }

  private ping(): void {
    if (this.ws?.readyState !== WebSocket.OPEN) return;
    clearTimeout(this.pongTimer);
    this.send({ type: "ping" });
    this.pongTimer = setTimeout(() => this.dropAndRetry(), PONG_TIMEOUT_MS);
  }

  /** A socket that stopped answering may take minutes to report its close; give up on it now. */
  private dropAndRetry(): void {
    this.teardownSocket(4000);
    if (this.stopped) return;
    this.setStatus("offline");
    this.scheduleReconnect();
  }

  private teardownSocket(code: number): void {
    this.clearSocketTimers();
    const ws = this.ws;
    this.ws = null;
    if (!ws) return;
    ws.onopen = null;
    ws.onmessage = null;
    ws.onclose = null;
    try {
      ws.close(code);
    } catch {
      // already closing
    }
  }

  private clearSocketTimers(): void {
    clearInterval(this.pingTimer);
    clearTimeout(this.pongTimer);
  }

  /** Reconnects after a random delay between half the ceiling and the ceiling, which doubles with each attempt. */
  private scheduleReconnect(minCeilingMs = 0): void {
    if (this.stopped) return;
    clearTimeout(this.reconnectTimer);
    const ceiling = Math.max(minCeilingMs, Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** this.attempt));
    const delay = ceiling / 2 + Math.random() * (ceiling / 2);
    this.attempt += 1;
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  private readonly handleOnline = () => {
    this.attempt = 0;
    if (!this.ws) this.connect();
  };

  private readonly handleOffline = () => {
    // The socket may linger after the network is gone; say so now rather than after the ping timeout.
    this.dropAndRetry();
  };

  private readonly handleVisibility = () => {
    if (document.visibilityState !== "visible") return;
    if (this.ws) this.ping();
    else if (!this.stopped) {
      this.attempt = 0;
      this.connect();
    }
  };
}
