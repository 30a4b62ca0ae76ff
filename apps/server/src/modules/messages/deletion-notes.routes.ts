/**
 * Deletion notes (docs/protocol/encryption.md, "Sealed messages"): a device leaves one, sealed, before it deletes
 * numbered messages or clears a day; the others read a date's notes so a deletion is not shown as a message that did
 * not arrive. The server keeps them as they come and cannot read them.
 */
import { DELETION_NOTES_API, deletionNoteInputSchema, deletionNotesQuerySchema, deletionNotesSchema } from "@daysync/shared";
import type { RateLimit } from "../../config/config.ts";
import { type ApiServer, answers } from "../../http/answers.ts";
import { requireAuth } from "../../http/auth.ts";
import { rateLimitPer } from "../../http/rate-limit.ts";
import { parse } from "../../http/validate.ts";
import type { DeletionNotesRepository } from "./deletion-notes.repository.ts";

export function deletionNotesRoutes(app: ApiServer, deps: { notes: DeletionNotesRepository; now: () => number; rateLimit: RateLimit }) {
  const { notes } = deps;

  app.post(
    DELETION_NOTES_API.notes,
    { config: rateLimitPer("session", deps.rateLimit, "deletions"), schema: answers(deletionNotesSchema) },
    async (request, reply) => {
      const auth = requireAuth(request);
      const { id, date, note } = parse(deletionNoteInputSchema, request.body);
      const kept = { id, date, device_id: auth.sessionId, note };
      await notes.add(auth.userId, kept, deps.now());
      return reply.status(201).send({ notes: [kept] });
    },
  );

  app.get(DELETION_NOTES_API.notes, { schema: answers(deletionNotesSchema) }, async (request) => {
    const auth = requireAuth(request);
    const { date } = parse(deletionNotesQuerySchema, request.query);
    return { notes: await notes.ofDate(auth.userId, date) };
  });
}
