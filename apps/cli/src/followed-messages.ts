/**
 * The user's own new messages as they arrive live, for `watch` and `clip`: where the terminal stopped is kept (the
 * last sequence number handled and the last message's time), so a dropped connection, a restart or a new run resumes
 * there; a log that no longer reaches back is caught up from the HTTP routes. Which live kinds are messages, and which
 * move the keys, is `LiveMessages`' to say.
 */
import { API, type Message, responseSchemas } from "@daysync/shared";
import type { ApiClient } from "./api-client.ts";
import type { WatchPosition } from "./config-store.ts";
import { runLive } from "./live-connection.ts";
import type { LiveMessages } from "./sealing/live-messages.ts";

/** Where the position is kept between runs. */
export interface KeptPosition {
  read(): WatchPosition | undefined;
  save(next: WatchPosition): void;
}

export interface Follower {
  /** A message of the user's days, in order; `seq` is null when it came from a catch-up. */
  message(message: Message, seq: number | null): Promise<void>;
  /** The connection is live (every time it is). */
  ready(): Promise<void> | void;
  /** Connection news for a person (lost, back). */
  notice(text: string): void;
}

export function followMessages(api: ApiClient, server: string, arriving: LiveMessages, kept: KeptPosition, follower: Follower) {
  // Without a kept position the first run starts from now: it skips the replay up to its `ready`.
  let position = kept.read();
  const save = (next: WatchPosition) => {
    position = next;
    kept.save(next);
  };
  return runLive(server, api.token ?? "", {
    position: {
      get: () => position?.seq ?? 0,
      // Without a position yet (a first run before its `ready`), what is replayed is skipped and nothing is saved.
      set: (seq) => {
        if (position) save({ seq, last_message_at: position.last_message_at });
      },
    },
    async onEvent(event, { seq }) {
      if (!position) return;
      const message = await arriving.onEvent(event);
      if (!message) return;
      await follower.message(message, seq);
      // Saved with the sequence number once this event is done.
      position = { ...position, last_message_at: message.timestamps };
    },
    async onReady({ seq }) {
      position ??= { seq, last_message_at: Date.now() };
      await follower.ready();
    },
    async onReset(seq) {
      // The log no longer reaches back to our position: fetch what arrived since the last message handled.
      if (position) {
        for (const message of await messagesSince(api, position.last_message_at)) {
          await follower.message(message, null);
          save({ seq: position.seq, last_message_at: message.timestamps });
        }
      }
      position ??= { seq, last_message_at: Date.now() };
    },
    onNotice: (text) => follower.notice(text),
  });
}

/** Live messages created after `since` (ms), oldest first, from the HTTP routes. */
async function messagesSince(api: ApiClient, since: number): Promise<Message[]> {
  const { days } = await api.get(API.days, responseSchemas.days);
  const found: Message[] = [];
  for (const day of days) {
    const { messages } = await api.get(API.dayMessages(day.id), responseSchemas.dayMessages);
    const newer = messages.filter((m) => m.timestamps > since);
    found.push(...newer);
    if (newer.length < messages.length) break;
  }
  return found.sort((a, b) => a.timestamps - b.timestamps);
}
