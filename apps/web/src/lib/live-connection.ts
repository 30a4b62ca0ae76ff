/**
 * This tab's binding of the live client (@daysync/live-client): the position in storage, the browser's online and
 * visibility events, and each event handed to `applyEvent` (app/ applies it to the features' caches).
 */

import { LiveClient, type LiveStatus, SocketSendDropped, SocketSendUnavailable } from "@daysync/live-client";
import {
  API,
  type DateMessages,
  type DeletedResponse,
  type LiveEvent,
  type Message,
  responseSchemas,
  type SendSealedMessageInput,
} from "@daysync/shared";
import type { QueryClient } from "@tanstack/react-query";
import { ApiError, api } from "./api-client.ts";
import { meQueryKey, reloadAllButMe } from "./session.ts";
import { readStorage, writeStorage } from "./storage.ts";

export type { LiveStatus };

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

export interface LiveConnectionOptions {
  userId: string;
  queryClient: QueryClient;
  /** Shows an event wherever it is shown; one that throws is reported and the next still applies. */
  applyEvent: (event: LiveEvent) => void;
  /** An event of a kind `LiveEvent` does not hold, unparsed (an encrypted discussion's). */
  applyOtherEvent?: (event: unknown) => void;
  /** The device is current again (after a (re)connect): a good moment to flush the outbox. */
  onReady?: () => void;
  /** The server closed with 4401/4403: this tab is no longer signed in. */
  onSessionEnded?: () => void;
}

export class LiveConnection {
  private readonly client: LiveClient;
  private readonly listeners = new Set<() => void>();
  private readonly eventListeners = new Set<(event: LiveEvent, live: boolean) => void>();

  constructor(options: LiveConnectionOptions) {
    const { userId, queryClient } = options;
    this.client = new LiveClient({
      openSocket: () => new WebSocket(liveUrl()),
      position: { get: () => lastSeq(userId), set: (seq) => saveSeq(userId, seq) },
      // Without a network the "online" event reconnects.
      canConnect: () => navigator.onLine,
      handlers: {
        onEvent: (event, { live }) => {
          options.applyEvent(event);
          for (const listener of this.eventListeners) listener(event, live);
        },
        onOtherEvent: (event) => options.applyOtherEvent?.(event),
        onReady: ({ resumedFrom }) => {
          // Without a sequence to resume from, the HTTP load may have raced with changes: load once more.
          if (resumedFrom === 0) reloadAllButMe(queryClient);
          options.onReady?.();
        },
        onReset: () => {
          void queryClient.invalidateQueries();
          options.onReady?.();
        },
        onStatus: () => {
          for (const listener of this.listeners) listener();
        },
        onLost: ({ handshakeFailed, failures }) => {
          // A refused handshake looks like any network failure; ask the API whether the session still exists.
          if (handshakeFailed && failures >= 2) void queryClient.invalidateQueries({ queryKey: meQueryKey });
        },
        onSignedOut: () => {
          this.stop();
          options.onSessionEnded?.();
        },
        // A cache update that throws is a bug of ours: reported as an uncaught error would be, and the next event still applies.
        onError: (error) => reportError(error),
      },
    });
  }

  start(): void {
    window.addEventListener("online", this.handleOnline);
    window.addEventListener("offline", this.handleOffline);
    document.addEventListener("visibilitychange", this.handleVisibility);
    this.client.start();
  }

  stop(): void {
    window.removeEventListener("online", this.handleOnline);
    window.removeEventListener("offline", this.handleOffline);
    document.removeEventListener("visibilitychange", this.handleVisibility);
    this.client.stop();
  }

  getStatus = (): LiveStatus => this.client.getStatus();

  /**
   * Sends a sealed message to the user's days as a frame on the live socket while it is current, else over HTTP
   * (issue 47): the same answer and the same ApiError either way. A socket that goes before answering leaves the
   * message to HTTP at once, same id, so it is stored once whichever road stored it.
   */
  async sendOwn(body: SendSealedMessageInput): Promise<{ message: Message; day: DateMessages }> {
    try {
      const answer = await this.client.sendMessage(body);
      if (answer.type === "sent") return { message: answer.message, day: answer.day };
      throw new ApiError(answer.status, answer.error.code, answer.error.message, answer.error.field);
    } catch (error) {
      if (!(error instanceof SocketSendUnavailable || error instanceof SocketSendDropped)) throw error;
    }
    return api.post(API.messages, body, responseSchemas.message);
  }

  /**
   * Deletes a message of the user's days by a frame on the live socket while it is current, else over HTTP (issue 47):
   * the same answer and the same ApiError (a 404 for one gone already) either way. A socket that goes before answering
   * leaves the deletion to HTTP at once; one done already is then a 404, as for any retried deletion.
   */
  async deleteOwn(id: string): Promise<DeletedResponse> {
    try {
      const answer = await this.client.deleteMessage(id);
      if (answer.type === "deleted") return { deleted: answer.deleted };
      throw new ApiError(answer.status, answer.error.code, answer.error.message, answer.error.field);
    } catch (error) {
      if (!(error instanceof SocketSendUnavailable || error instanceof SocketSendDropped)) throw error;
    }
    return api.delete(API.message(id), responseSchemas.deleted);
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Hears each applied event; `live` is false for events replayed after a (re)connect. */
  onEvent = (listener: (event: LiveEvent, live: boolean) => void): (() => void) => {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  };

  private readonly handleOnline = () => this.client.reconnectNow();

  // The socket may linger after the network is gone; say so now rather than after the ping timeout.
  private readonly handleOffline = () => this.client.dropConnection();

  private readonly handleVisibility = () => {
    if (document.visibilityState === "visible") this.client.checkNow();
  };
}
