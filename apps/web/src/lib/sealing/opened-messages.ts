/**
 * What the pages show of the personal space's sealed messages (docs/protocol/encryption.md, "Sealed messages"): opened on this device with
 * the epochs it holds, once per message and held epochs, and never the ciphertext. Messages in clear (older ones,
 * discussions) show as they are, at once; one in clear in the personal space dated after this device saw the account
 * keyed was written by the server, and shows only "Not encrypted: not sent by your devices".
 */
import { type Message, SEALED_TEXT } from "@daysync/shared";
import {
  type HeldEpochs,
  type Opened,
  openDayPreview,
  openMessage,
  type SealedDayFields,
  type SealedMessageFields,
  writtenByServer,
} from "@daysync/shared/crypto";
import { useQueries } from "@tanstack/react-query";
import { useRef, useSyncExternalStore } from "react";
import { useSessionServices } from "../session-services.ts";
import type { SettledShown, Shown } from "../shown.ts";
import { type DeviceKeyStatus, type DeviceKeys, heldEpochsOf, keyedAtOf } from "./device-keys.ts";

function shownOf(opened: Opened, status: DeviceKeyStatus): SettledShown {
  if (opened.state === "clear" || opened.state === "opened") return { kind: "text", text: opened.text };
  if (opened.state === "undecryptable") return { kind: "notice", text: SEALED_TEXT.undecryptable };
  if (opened.state === "not_encrypted") return { kind: "notice", text: SEALED_TEXT.notEncrypted };
  if (status.state === "failed" && status.insecure) return { kind: "notice", text: SEALED_TEXT.insecure };
  // An epoch a device that holds the current one lacks is one from before "Start over".
  return { kind: "notice", text: status.state === "ready" ? SEALED_TEXT.beforeReset : SEALED_TEXT.locked };
}

/** The key of one opening: the value (its end is enough to tell a changed one) and which epochs were held. */
const openingKey = (kind: string, id: string, sealed: string, epochs: HeldEpochs | undefined) => [
  "opened",
  kind,
  id,
  sealed.length,
  sealed.slice(-32),
  epochs ? [...epochs.keys()].sort((a, b) => a - b).join(",") : "unknown",
];

/** One value to open: its key's kind and id, and what is sealed of it (null: it is in clear). */
interface Opening {
  kind: string;
  id: string;
  sealed: string | null;
  open: (userId: string, epochs: HeldEpochs, keyedAt: number | undefined) => Promise<Opened>;
}

/**
 * Opens each value once per held epochs (a query each, cached in memory), again when this device's keys change.
 * The openings live under their own "opened" keys and nothing opened is written back into the data's queries: those
 * stay sealed, as the server sent them, because the offline copy (lib/offline-cache.ts) writes them to localStorage.
 */
function useOpenings(openings: readonly Opening[]) {
  const { user, keys } = useSessionServices();
  const status = useSyncExternalStore(keys.subscribe, keys.getStatus);
  const epochs = heldEpochsOf(status);
  const keyedAt = keyedAtOf(status);
  const results = useQueries({
    queries: openings.map(({ kind, id, sealed, open }) => ({
      queryKey: [...openingKey(kind, id, sealed ?? "", epochs), keyedAt ?? "unkeyed"],
      queryFn: () => open(user.id, epochs ?? new Map(), keyedAt),
      enabled: sealed !== null && epochs !== undefined,
      // Opening is work on this device, not a request: offline too (the query library would hold it back otherwise).
      networkMode: "always" as const,
      staleTime: Number.POSITIVE_INFINITY,
      gcTime: 10 * 60_000,
    })),
  });
  return { status, keyedAt, opened: results.map((result) => result.data) };
}

const sameShown = (a: Shown, b: Shown) =>
  a.kind === "opening" || b.kind === "opening" ? a.kind === b.kind : a.kind === b.kind && a.text === b.text;

/**
 * Each item with what it shows, the same object (and the same list) while neither the item nor what it shows
 * changed, so memoised rows and effects that follow the list do not run again for nothing.
 */
function useWithShown<T extends object, K extends string>(items: readonly T[], field: K, shown: readonly Shown[]) {
  type With = T & Record<K, Shown>;
  const byItem = useRef(new WeakMap<T, With>());
  const last = useRef<readonly With[]>([]);
  const next = items.map((item, i) => {
    const now = shown[i] ?? { kind: "opening" };
    const kept = byItem.current.get(item);
    if (kept && sameShown(kept[field], now)) return kept;
    const made = { ...item, [field]: now } as With;
    byItem.current.set(item, made);
    return made;
  });
  if (next.length !== last.current.length || next.some((item, i) => item !== last.current[i])) last.current = next;
  return last.current;
}

/** A message with its text (a file's: its name) as this device shows it. */
export type OpenedMessage<T extends SealedMessageFields = SealedMessageFields> = T & { shown: Shown };

/**
 * The messages as the views show them, each with its text opened on this device: the one place a feature's
 * messages are opened (its data hook calls it where they come in). `personal`: the user's days, where a message in
 * clear after the account was keyed is the server's (a discussion's are in clear by design).
 */
export function useOpenedMessages<T extends SealedMessageFields>(messages: readonly T[], personal: boolean): readonly OpenedMessage<T>[] {
  const openings = messages.map((message) => ({
    kind: "message",
    id: message.id,
    sealed: message.epoch === undefined ? null : message.content + (message.preview ?? "") + message.filename,
    open: (userId: string, epochs: HeldEpochs, keyedAt: number | undefined) => openMessage(userId, epochs, message, keyedAt),
  }));
  const { status, keyedAt, opened } = useOpenings(openings);
  const shown = messages.map((message, i): Shown => {
    if (personal && writtenByServer(keyedAt, message)) return { kind: "notice", text: SEALED_TEXT.notEncrypted };
    if (message.epoch === undefined) return { kind: "text", text: message.type === "text" ? message.content : message.filename };
    const result = opened[i];
    return result ? shownOf(result, status) : { kind: "opening" };
  });
  return useWithShown(messages, "shown", shown);
}

/** A day with its preview line (its newest message) as this device shows it. */
export type OpenedDay<T extends SealedDayFields = SealedDayFields> = T & { preview: Shown };

/** The days as the views show them, each with its preview line opened on this device. */
export function useOpenedDays<T extends SealedDayFields & { id: string }>(days: readonly T[]): readonly OpenedDay<T>[] {
  const openings = days.map((day) => ({
    kind: "day",
    id: day.id,
    sealed: day.last_message_epoch === undefined ? null : day.last_message + (day.last_message_id ?? ""),
    open: (userId: string, epochs: HeldEpochs) => openDayPreview(userId, epochs, day),
  }));
  const { status, opened } = useOpenings(openings);
  const shown = days.map((day, i): Shown => {
    if (day.last_message_epoch === undefined) return { kind: "text", text: day.last_message };
    const result = opened[i];
    return result ? shownOf(result, status) : { kind: "opening" };
  });
  return useWithShown(days, "preview", shown);
}

/** A message's text for a copy or a toast, outside a page, or the sentence in its place. */
export async function shownText(services: { user: { id: string }; keys: DeviceKeys }, message: SealedMessageFields): Promise<SettledShown> {
  const status = await services.keys.knownStatus();
  // A text in clear the server wrote into the keyed account is never copied (docs/protocol/encryption.md).
  if (writtenByServer(keyedAtOf(status), message)) return { kind: "notice", text: SEALED_TEXT.notEncrypted };
  if (message.epoch === undefined) return { kind: "text", text: message.type === "text" ? message.content : message.filename };
  return shownOf(await openMessage(services.user.id, heldEpochsOf(status) ?? new Map(), message, keyedAtOf(status)), status);
}

/**
 * A message as a search on this device reads it: `content` holds a text's words or a file's name (never its bytes),
 * opened when sealed; undefined for one this device cannot open.
 */
export async function searchableOf(userId: string, epochs: HeldEpochs, message: Message): Promise<Message | undefined> {
  const isText = message.type === "text";
  if (message.epoch === undefined) return isText ? message : { ...message, content: message.filename };
  const result = await openMessage(userId, epochs, message);
  if (result.state !== "opened") return undefined;
  const name = isText ? {} : { filename: result.text };
  return { ...message, ...name, content: result.text, epoch: undefined, preview: undefined };
}
