/** Queries of days and messages; every one is scoped to a user. */
import { sql, type Transaction } from "kysely";
import type { Db } from "../../db/database.ts";
import type { Database, DateMessagesTable, MessagesTable } from "../../db/schema.ts";

type Executor = Db | Transaction<Database>;

/** Minutes a user's messages live (null: unlimited), from their current subscription. */
export async function retentionOf(db: Executor, userId: string): Promise<number | null> {
  const row = await db
    .selectFrom("users")
    .innerJoin("subscriptions", "subscriptions.id", "users.actual_subscription_id")
    .select("subscriptions.max_message_duration")
    .where("users.id", "=", userId)
    .executeTakeFirst();
  return row?.max_message_duration == null ? null : Number(row.max_message_duration);
}

export async function listDays(db: Executor, userId: string): Promise<DateMessagesTable[]> {
  return db.selectFrom("date_messages").selectAll().where("user_id", "=", userId).orderBy("day_key", "desc").execute();
}

export async function findDay(db: Executor, userId: string, dayId: string): Promise<DateMessagesTable | undefined> {
  return db.selectFrom("date_messages").selectAll().where("id", "=", dayId).where("user_id", "=", userId).executeTakeFirst();
}

/** Gets the user's record of a calendar day, creating it when missing (safe when two sends race). */
export async function ensureDay(
  trx: Transaction<Database>,
  userId: string,
  date: string,
  dayKey: string,
  id: string,
  now: number,
): Promise<DateMessagesTable> {
  await trx
    .insertInto("date_messages")
    .values({
      id,
      user_id: userId,
      date,
      day_key: dayKey,
      last_message_time: "",
      last_message_type: "",
      last_message: "",
      count_messages: 0,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(["user_id", "day_key"]).doNothing())
    .execute();
  return trx.selectFrom("date_messages").selectAll().where("user_id", "=", userId).where("day_key", "=", dayKey).executeTakeFirstOrThrow();
}

/** Counts the new message into its day's summary with one atomic update. */
export async function addToDaySummary(
  trx: Transaction<Database>,
  dayId: string,
  message: MessagesTable,
  summary: string,
  now: number,
): Promise<DateMessagesTable> {
  await trx
    .updateTable("date_messages")
    .set((eb) => ({
      count_messages: eb("count_messages", "+", 1),
      last_message_time: message.time,
      last_message_type: message.type,
      last_message: summary,
      updated_at: now,
    }))
    .where("id", "=", dayId)
    .execute();
  return trx.selectFrom("date_messages").selectAll().where("id", "=", dayId).executeTakeFirstOrThrow();
}

export async function findMessage(db: Executor, id: string): Promise<MessagesTable | undefined> {
  return db.selectFrom("messages").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function insertMessage(trx: Transaction<Database>, message: MessagesTable): Promise<void> {
  await trx.insertInto("messages").values(message).execute();
}

/** Live messages of a day, oldest first; `since` is the retention cut-off (null: keep all). */
export async function listDayMessages(db: Executor, userId: string, dayId: string, since: number | null): Promise<MessagesTable[]> {
  let q = db.selectFrom("messages").selectAll().where("user_id", "=", userId).where("date_message_id", "=", dayId);
  if (since !== null) q = q.where("created_at", ">=", since);
  return q.orderBy("created_at").orderBy("id").execute();
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Live text messages of the user containing `text` (case-insensitive), newest first. */
export async function searchMessages(db: Executor, userId: string, text: string, since: number | null, limit: number) {
  let q = db
    .selectFrom("messages")
    .innerJoin("date_messages", "date_messages.id", "messages.date_message_id")
    .selectAll("messages")
    .select([
      "date_messages.date as day_date",
      "date_messages.day_key",
      "date_messages.last_message_time",
      "date_messages.last_message_type",
      "date_messages.last_message",
      "date_messages.count_messages",
      "date_messages.created_at as day_created_at",
      "date_messages.updated_at as day_updated_at",
    ])
    .where("messages.user_id", "=", userId)
    .where(sql<boolean>`lower(${sql.ref("messages.content")}) like ${`%${escapeLike(text.toLowerCase())}%`} escape '\\'`);
  if (since !== null) q = q.where("messages.created_at", ">=", since);
  const rows = await q.orderBy("messages.created_at", "desc").limit(limit).execute();
  return rows.map(
    ({ day_date, day_key, last_message_time, last_message_type, last_message, count_messages, day_created_at, day_updated_at, ...m }) => ({
      message: m as MessagesTable,
      day: {
        id: m.date_message_id,
        user_id: userId,
        date: day_date,
        day_key,
        last_message_time,
        last_message_type,
        last_message,
        count_messages,
        created_at: day_created_at,
        updated_at: day_updated_at,
      } satisfies DateMessagesTable,
    }),
  );
}
