/**
 * What the pages show of the personal space's sealed messages (docs/protocol/encryption.md, "Sealed messages"): opened on this device with
 * the epochs it holds, once per message and held epochs, and never the ciphertext. Messages in clear (older ones,
 * discussions) show as they are, at once; one in clear in the personal space dated after this device saw the account
 * keyed was written by the server, and shows only "Not encrypted: not sent by your devices".
 */
import { SEALED_TEXT } from "@daysync/shared";
import {
  type HeldEpochs,
  type Opened,
  openDayPreview,
  openMessage,
  type SealedDayFields,
  type SealedMessageFields,
  writtenByServer,
} from "@daysync/shared/crypto";
import { useQuery } from "@tanstack/react-query";
import { useSyncExternalStore } from "react";
import { type DeviceKeyStatus, type DeviceKeys, heldEpochsOf, keyedAtOf } from "./device-keys.ts";
import { useSessionServices } from "./session-services.ts";

/** What to show: the text, or a sentence in its place (no Copy, no preview), or nothing yet while it opens. */
export type Shown = Settled | { kind: "opening" };
type Settled = { kind: "text"; text: string } | { kind: "notice"; text: string };

function shownOf(opened: Opened, status: DeviceKeyStatus): Settled {
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

function useOpening(
  kind: string,
  id: string,
  sealed: string | null,
  open: (userId: string, epochs: HeldEpochs, keyedAt: number | undefined) => Promise<Opened>,
) {
  const { user, keys } = useSessionServices();
  const status = useSyncExternalStore(keys.subscribe, keys.getStatus);
  const epochs = heldEpochsOf(status);
  const keyedAt = keyedAtOf(status);
  const query = useQuery({
    queryKey: [...openingKey(kind, id, sealed ?? "", epochs), keyedAt ?? "unkeyed"],
    queryFn: () => open(user.id, epochs ?? new Map(), keyedAt),
    enabled: sealed !== null && epochs !== undefined,
    // Opening is work on this device, not a request: offline too (the query library would hold it back otherwise).
    networkMode: "always",
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: 10 * 60_000,
  });
  return { status, opened: query.data, keyedAt };
}

/**
 * A message's text as this device can show it. `personal`: a message of the user's days, where one in clear after
 * the account was keyed is the server's (a discussion's are in clear by design).
 */
export function useShownText(message: SealedMessageFields, personal = true): Shown {
  const sealed = message.epoch === undefined ? null : message.content + (message.preview ?? "") + message.filename;
  const { status, opened, keyedAt } = useOpening("message", message.id, sealed, (userId, epochs, keyed) =>
    openMessage(userId, epochs, message, keyed),
  );
  if (personal && writtenByServer(keyedAt, message)) return { kind: "notice", text: SEALED_TEXT.notEncrypted };
  if (sealed === null) return { kind: "text", text: message.type === "text" ? message.content : message.filename };
  return opened ? shownOf(opened, status) : { kind: "opening" };
}

/** A day's preview line as this device can show it. */
export function useShownDayPreview(day: SealedDayFields & { id: string }): Shown {
  const sealed = day.last_message_epoch === undefined ? null : day.last_message + (day.last_message_id ?? "");
  const { status, opened } = useOpening("day", day.id, sealed, (userId, epochs) => openDayPreview(userId, epochs, day));
  if (sealed === null) return { kind: "text", text: day.last_message };
  return opened ? shownOf(opened, status) : { kind: "opening" };
}

/** A message's text for a copy or a toast, outside a page, or the sentence in its place. */
export async function shownText(services: { user: { id: string }; keys: DeviceKeys }, message: SealedMessageFields): Promise<Settled> {
  const status = await services.keys.knownStatus();
  // A text in clear the server wrote into the keyed account is never copied (docs/protocol/encryption.md).
  if (writtenByServer(keyedAtOf(status), message)) return { kind: "notice", text: SEALED_TEXT.notEncrypted };
  if (message.epoch === undefined) return { kind: "text", text: message.type === "text" ? message.content : message.filename };
  return shownOf(await openMessage(services.user.id, heldEpochsOf(status) ?? new Map(), message, keyedAtOf(status)), status);
}
