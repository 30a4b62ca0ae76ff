/** Says "this user's data changed" to every live connection of that user, in this process or (scaled out) others. */
import { serverLiveEventSchema } from "@daysync/shared";
import { z } from "zod";

const sessionNotice = z.object({ userId: z.string(), sessionId: z.string() });

/** Every topic the processes tell each other about, with the schema of what it carries (read back through it). */
export const busTopicSchemas = {
  /** A user's change, numbered in their log. */
  change: z.object({ userId: z.string(), seq: z.number().int().positive(), event: serverLiveEventSchema }),
  /** A session ended: its sockets close and its cached lookup goes, on every process. */
  "session.revoked": sessionNotice,
  /** A user's push subscriptions changed: processes drop what they keep of them. */
  "push.changed": z.object({ userId: z.string() }),
  /** A device was renamed: its cached session lookup (which holds its name) is dropped everywhere. */
  "session.renamed": sessionNotice,
  /** A pairing request was approved or denied (or an offer opened): its waiting or watching device is told. */
  "pairing.decided": z.object({ requestId: z.string() }),
  /** Another process waits for an upload this process holds the lock of. */
  "upload.release": z.object({ uploadId: z.string() }),
};

export type BusTopics = { [T in keyof typeof busTopicSchemas]: z.infer<(typeof busTopicSchemas)[T]> };
export type UserChange = BusTopics["change"];
export type SessionNotice = BusTopics["session.revoked"];
export type PairingNotice = BusTopics["pairing.decided"];
export type UploadReleaseRequest = BusTopics["upload.release"];
export type PushNotice = BusTopics["push.changed"];

export type Topic = keyof BusTopics;
export type Listener<T extends Topic> = (payload: BusTopics[T]) => void;

export interface EventBus {
  publish<T extends Topic>(topic: T, payload: BusTopics[T]): void;
  subscribe<T extends Topic>(topic: T, listener: Listener<T>): () => void;
  /** Called when messages may have been lost (the connection to the other processes came back). */
  onReconnect(listener: () => void): () => void;
  close(): Promise<void>;
}

/** Listeners per topic, in one process: the in-process bus, and each process's end of the Redis bus. */
export function createLocalFanOut() {
  const listeners = new Map<Topic, Set<(payload: never) => void>>();
  return {
    add<T extends Topic>(topic: T, listener: Listener<T>): () => void {
      const set = listeners.get(topic) ?? new Set();
      listeners.set(topic, set);
      set.add(listener);
      return () => set.delete(listener);
    },
    emit<T extends Topic>(topic: T, payload: BusTopics[T]): void {
      for (const listener of listeners.get(topic) ?? []) (listener as Listener<T>)(payload);
    },
    clear: () => listeners.clear(),
  };
}

/** The default bus for one process. */
export function createInProcessBus(): EventBus {
  const local = createLocalFanOut();
  return {
    publish: (topic, payload) => local.emit(topic, payload),
    subscribe: (topic, listener) => local.add(topic, listener),
    onReconnect: () => () => {},
    async close() {
      local.clear();
    },
  };
}

/** Routes the one `change` topic to the listeners of each user, so a process subscribes once, not once per user. */
export function subscribeUserChanges(bus: EventBus) {
  const byUser = new Map<string, Set<Listener<"change">>>();
  const stop = bus.subscribe("change", (change) => {
    for (const listener of byUser.get(change.userId) ?? []) listener(change);
  });
  return {
    subscribe(userId: string, listener: Listener<"change">): () => void {
      const set = byUser.get(userId) ?? new Set();
      byUser.set(userId, set);
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0) byUser.delete(userId);
      };
    },
    close: stop,
  };
}
