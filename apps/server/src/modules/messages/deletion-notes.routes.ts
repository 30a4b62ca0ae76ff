/**
 * Deletion notes (docs/protocol/encryption.md, "Sealed messages"): a device leaves one, sealed, before it deletes
 * numbered messages or clears a day; the others read a date's notes so a deletion is not shown as a message that did
 * not arrive. The server keeps them as they come and cannot read them.
 */
import { DELETION_NOTES_API, deletionNoteInputSchema, deletionNotesQuerySchema, deletionNotesSchema } from "@daysync/shared";
import type { RateLimit } from "../../config/config.ts";
import type { Db } from "../../db/database.ts";
import { type ApiServer, answers } from "../../http/answers.ts";
import { requireAuth } from "../../http/auth.ts";
import { rateLimitPer } from "../../http/rate-limit.ts";
import { parse } from "../../http/validate.ts";

export function deletionNotesRoutes(app: ApiServer, deps: { db: Db; now: () => number; rateLimit: RateLimit }) {
  const { db } = deps;

  app.post(
    DELETION_NOTES_API.notes,
    { config: rateLimitPer("session", deps.rateLimit, "deletions"), schema: answers(deletionNotesSchema) },
    async (request, reply) => {
      const auth = requireAuth(request);
      const { id, date, note } = parse(deletionNoteInputSchema, request.body);
      await db
        .insertInto("deletion_notes")
        .values({ id, user_id: auth.userId, date, device_id: auth.sessionId, note, created_at: deps.now() })
        .onConflict((oc) => oc.column("id").doNothing())
        .execute();
      return reply.status(201).send({ notes: [{ id, date, device_id: auth.sessionId, note }] });
    },
  );

  app.get(DELETION_NOTES_API.notes, { schema: answers(deletionNotesSchema) }, async (request) => {
    const auth = requireAuth(request);
    const { date } = parse(deletionNotesQuerySchema, request.query);
    const notes = await db
      .selectFrom("deletion_notes")
      .select(["id", "date", "device_id", "note"])
      .where("user_id", "=", auth.userId)
      .where("date", "=", date)
      .orderBy("created_at")
      .execute();
    return { notes };
  });
}
