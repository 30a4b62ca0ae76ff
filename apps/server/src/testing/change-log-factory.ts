/** Test data for the live connection: many messages with their logged changes, written straight into the database. */
import type { Db } from "../db/database.ts";
import type { MessagesTable } from "../db/schema.ts";

const CHUNK = 1000;

/**
 * Adds `count` text messages to one of the user's days, each with a `message.created` change, numbered after
 * the user's current sequence as if they had been sent one by one. Returns the last sequence number.
 */
export async function seedMessageChanges(db: Db, userId: string, dayId: string, count: number, now: number): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const day = await trx
      .selectFrom("date_messages")
      .selectAll()
      .where("id", "=", dayId)
      .where("user_id", "=", userId)
      .executeTakeFirstOrThrow();
    const user = await trx.selectFrom("users").select("seq").where("id", "=", userId).executeTakeFirstOrThrow();
    const first = Number(user.seq) + 1;
    for (let start = 0; start < count; start += CHUNK) {
      const size = Math.min(CHUNK, count - start);
      const messages: MessagesTable[] = Array.from({ length: size }, (_, i) => ({
        id: crypto.randomUUID(),
        space_id: userId,
        user_id: userId,
        date_message_id: dayId,
        type: "text",
        content: `seeded ${start + i + 1}`,
        filename: "",
        file_url: "",
        date: day.date,
        time: day.last_message_time || "9:00 AM",
        url: "",
        created_at: now,
        file_size: null,
        device_id: null,
        device_name: null,
        epoch: null,
        preview: "",
        file_key: "",
      }));
      await trx.insertInto("messages").values(messages).execute();
      await trx
        .insertInto("user_events")
        .values(messages.map((m, i) => ({ user_id: userId, seq: first + start + i, kind: "message.created", ref: m.id, created_at: now })))
        .execute();
    }
    const last = first + count - 1;
    await trx.updateTable("users").set({ seq: last }).where("id", "=", userId).execute();
    return last;
  });
}
