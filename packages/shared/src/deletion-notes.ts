/**
 * Deletion notes (docs/protocol/encryption.md, "Sealed messages"): before a device deletes numbered messages (or
 * clears a day) it leaves a note, sealed under the account's epoch, naming the numbers it deleted on that date, so
 * the other devices do not report them as messages that did not arrive. The server keeps the notes and cannot read,
 * move or forge them; dropping one only makes a deletion show as a gap.
 */
import { z } from "zod";
import { STORED_DATE_PATTERN } from "./formats.ts";
import { SEALED_VALUE_PATTERN, sealedValueSchema } from "./sealed-messages.ts";

export const DELETION_NOTES_API = { notes: "/api/deletion-notes" } as const;

/** The longest sealed note: 100 numbers a note, each a key id and an index. */
export const DELETION_NOTE_MAX_LENGTH = 40_000;

export const deletionNoteInputSchema = z.object({
  id: z.uuid("id must be a UUID."),
  date: z.string({ error: "date is required." }).regex(STORED_DATE_PATTERN, "date must be M/d/yyyy."),
  note: sealedValueSchema("note", DELETION_NOTE_MAX_LENGTH),
});
export type DeletionNoteInput = z.infer<typeof deletionNoteInputSchema>;

export const deletionNotesQuerySchema = z.object({
  date: z.string({ error: "date is required." }).regex(STORED_DATE_PATTERN, "date must be M/d/yyyy."),
});

/** A note as the server keeps it: `device_id` is the session that left it, bound into the seal. */
export const deletionNoteSchema = z.object({
  id: z.string(),
  date: z.string(),
  device_id: z.string(),
  note: z.string().regex(SEALED_VALUE_PATTERN),
});
export type DeletionNote = z.infer<typeof deletionNoteSchema>;

export const deletionNotesSchema = z.object({ notes: z.array(deletionNoteSchema) });
