/**
 * Gaps shown, not hidden (docs/protocol/encryption.md, "Sealed messages"): the day's messages that one of the
 * person's devices numbered but that never arrived, as quiet lines placed where they are missing ("1 message from
 * Laptop did not arrive"). Deletions with a note, messages still under way and expired ones are no gap.
 */
import { DELETION_NOTES_API, deletionNotesSchema, type Message } from "@daysync/shared";
import { useQuery } from "@tanstack/react-query";
import { useMemo, useSyncExternalStore } from "react";
import { api } from "../../../lib/api-client.ts";
import { gapsOfSealedDay } from "../../../lib/sealing/day-gaps.ts";
import { heldEpochsOf } from "../../../lib/sealing/device-keys.ts";
import { useSessionServices } from "../../../lib/session-services.ts";
import type { ConversationLine } from "./message-list.tsx";

const NO_LINES: readonly ConversationLine[] = [];

/** `messages`: the day's stored messages (those held for Undo too: a deletion not sent yet is no gap). */
export function useDayGapLines(date: string, messages: readonly Message[]): readonly ConversationLine[] {
  const { user, keys } = useSessionServices();
  const status = useSyncExternalStore(keys.subscribe, keys.getStatus);
  const epochs = heldEpochsOf(status);
  const sealed = messages.filter((m) => m.epoch !== undefined);
  const ids = sealed.map((m) => m.id).join(",");
  // Read again whenever the day's messages change: a deletion from another device leaves its note first.
  const notes = useQuery({
    queryKey: ["deletion-notes", date, ids],
    queryFn: () => api.get(`${DELETION_NOTES_API.notes}?date=${encodeURIComponent(date)}`, deletionNotesSchema),
    enabled: sealed.length > 0,
  });
  const held = epochs ? [...epochs.keys()].join(",") : "";
  const gaps = useQuery({
    queryKey: ["day-gaps", date, ids, held, notes.dataUpdatedAt],
    enabled: epochs !== undefined && notes.data !== undefined,
    networkMode: "always",
    queryFn: () => gapsOfSealedDay(user, status, { date, sealed, notes: notes.data?.notes ?? [] }),
  });
  return useMemo(() => {
    if (!gaps.data || gaps.data.length === 0) return NO_LINES;
    const at = new Map(messages.map((m) => [m.id, m.timestamps]));
    // Just before the message that came after the missing ones.
    return gaps.data
      .map((gap) => ({ id: `gap-${gap.keyId}-${gap.first}`, at: (at.get(gap.before) ?? 0) - 0.5, text: gap.notice, gap: true }))
      .sort((a, b) => a.at - b.at);
  }, [gaps.data, messages]);
}
