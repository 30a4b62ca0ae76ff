/** Queries of days and messages; every one is scoped to a user. */
import { sql, type Transaction } from "kysely";
import type { Db } from "../../db/database.ts";
import type { Database, DateMessagesTable, MessagesTable } from "../../db/schema.ts";
import { createPlansRepository } from "../plans/plans.repository.ts";

type Executor = Db | Transaction<Database>;

/** Minutes a user's messages live (null: unlimited), from their current subscription. */
export function retentionOf(db: Executor, userId: string): Promise<number | null> {
  return createPlansRepository(db).retentionOf(userId);
}

/** The oldest creation time still live for the user at `now` (null: unlimited retention, everything is live). */
export async function retentionCutoff(db: Executor, userId: string, now: number): Promise<number | null> {
  const minutes = await retentionOf(db, userId);
  return minutes === null ? null : now - minutes * 60_000;
}

const SUMMARY_LENGTH = 200;

/** What a day summary shows of its last message: the start of a text, a file's name. */
export function summaryText(message: Pick<MessagesTable, "type" | "content" | "filename">): string {
  return message.type === "text" ? message.content.slice(0, SUMMARY_LENGTH) : message.filename;
}

/**
 * The user's days (all, or those of `dayIds`), newest first, each with the summary of its live messages only:
 * those created at or after `since`; a day with none has an empty summary. With `since` null (unlimited
 * retention) nothing expires and the stored summary is exact, so it is served as is.
 */
export async function liveDays(
  db: Executor,
  userId: string,
  since: number | null,
  dayIds?: readonly string[],
): Promise<DateMessagesTable[]> {
  if (dayIds?.length === 0) return [];
  let daysQuery = db.selectFrom("date_messages").selectAll().where("user_id", "=", userId);
  if (dayIds) daysQuery = daysQuery.where("id", "in", dayIds);
  const days = await daysQuery.orderBy("day_key", "desc").execute();
  if (since === null || days.length === 0) return days;
  // One pass over the user's live messages: each day's count and its newest message.
  const newest = await db
    .with("ranked", (qb) => {
      let ranked = qb
        .selectFrom("messages")
        .select([
          "id",
          sql<number>`row_number() over (partition by date_message_id order by created_at desc, id desc)`.as("rank"),
          sql<number>`count(*) over (partition by date_message_id)`.as("live_count"),
        ])
        .where("user_id", "=", userId)
        .where("created_at", ">=", since);
      if (dayIds) ranked = ranked.where("date_message_id", "in", dayIds);
      return ranked;
    })
    .selectFrom("ranked")
    .innerJoin("messages as m", "m.id", "ranked.id")
    .select(["ranked.live_count", "m.date_message_id", "m.type", "m.time", "m.content", "m.filename"])
    .where("ranked.rank", "=", 1)
    .execute();
  const byDay = new Map(newest.map((m) => [m.date_message_id, m]));
  return days.map((day) => {
    const m = byDay.get(day.id);
    return m
      ? { ...day, last_message: summaryText(m), last_message_time: m.time, last_message_type: m.type, count_messages: Number(m.live_count) }
      : { ...day, last_message: "", last_message_time: "", last_message_type: "", count_messages: 0 };
  });
}

/** Stores days' recomputed summaries (see `liveDays`). */
export async function storeDaySummaries(trx: Transaction<Database>, days: readonly DateMessagesTable[], now: number): Promise<void> {
  for (const day of days) {
    await trx
      .updateTable("date_messages")
      .set({
        last_message: day.last_message,
        last_message_time: day.last_message_time,
        last_message_type: day.last_message_type,
        count_messages: day.count_messages,
        updated_at: now,
      })
      .where("id", "=", day.id)
      .execute();
  }
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

/**
 * Counts the new message into its day's stored summary with one atomic update, and returns the day's live
 * summary (as `liveDays` would) without summing up the whole day again: the new message is the newest, and the
 * stored count holds every stored message, so only those expired since the last sweep (seconds' worth, found
 * through the `messages_day` index) are left out.
 */
export async function addToDaySummary(
  trx: Transaction<Database>,
  dayId: string,
  message: MessagesTable,
  now: number,
  since: number | null,
): Promise<DateMessagesTable> {
  const day = await trx
    .updateTable("date_messages")
    .set((eb) => ({
      count_messages: eb("count_messages", "+", 1),
      last_message_time: message.time,
      last_message_type: message.type,
      last_message: summaryText(message),
      updated_at: now,
    }))
    .where("id", "=", dayId)
    .returningAll()
    .executeTakeFirstOrThrow();
  if (since === null) return day;
  const expired = await trx
    .selectFrom("messages")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("date_message_id", "=", dayId)
    .where("created_at", "<", since)
    .executeTakeFirstOrThrow();
  return { ...day, count_messages: Number(day.count_messages) - Number(expired.n) };
}

export async function findMessage(db: Executor, id: string): Promise<MessagesTable | undefined> {
  return db.selectFrom("messages").selectAll().where("id", "=", id).executeTakeFirst();
}

/** A message the retention sweep deleted (see `ExpiredMessagesTable`). */
export async function findExpiredMessage(db: Executor, id: string) {
  return db.selectFrom("expired_messages").select(["id", "user_id"]).where("id", "=", id).executeTakeFirst();
}

/**
 * Deletes those of the messages that are still there (another process's sweep may have deleted them since they
 * were listed), remembering their ids; returns the ids it deleted and the days they belonged to.
 */
export async function deleteExpiredMessages(
  trx: Transaction<Database>,
  userId: string,
  candidates: readonly string[],
  now: number,
): Promise<{ ids: string[]; dayIds: string[] }> {
  const present = await trx
    .selectFrom("messages")
    .select(["id", "date_message_id"])
    .where("id", "in", candidates)
    .where("user_id", "=", userId)
    .execute();
  if (present.length === 0) return { ids: [], dayIds: [] };
  const ids = present.map((m) => m.id);
  await trx
    .insertInto("expired_messages")
    .columns(["id", "user_id", "expired_at"])
    .expression((eb) =>
      eb
        .selectFrom("messages")
        .select(["id", "user_id", sql<number>`cast(${now} as bigint)`.as("expired_at")])
        .where("id", "in", ids)
        .where("user_id", "=", userId),
    )
    .onConflict((oc) => oc.column("id").doNothing())
    .execute();
  await trx.deleteFrom("messages").where("id", "in", ids).where("user_id", "=", userId).execute();
  return { ids, dayIds: [...new Set(present.map((m) => m.date_message_id))] };
}

export async function forgetExpiredMessages(db: Executor, before: number): Promise<void> {
  await db.deleteFrom("expired_messages").where("expired_at", "<", before).execute();
}

/** Stores the message unless its id is taken (by anyone); false then, with nothing written and no error. */
export async function insertMessage(trx: Transaction<Database>, message: MessagesTable): Promise<boolean> {
  const row = await trx
    .insertInto("messages")
    .values(message)
    .onConflict((oc) => oc.column("id").doNothing())
    .returning("id")
    .executeTakeFirst();
  return row !== undefined;
}

/** Live messages of a day, oldest first; `since` is the retention cut-off (null: keep all). */
export async function listDayMessages(db: Executor, userId: string, dayId: string, since: number | null): Promise<MessagesTable[]> {
  let q = db.selectFrom("messages").selectAll().where("user_id", "=", userId).where("date_message_id", "=", dayId);
  if (since !== null) q = q.where("created_at", ">=", since);
  return q.orderBy("created_at").orderBy("id").execute();
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Live text messages of the user containing `text` (case-insensitive), newest first. */
export async function searchMessages(
  db: Executor,
  userId: string,
  text: string,
  since: number | null,
  limit: number,
): Promise<MessagesTable[]> {
  let q = db
    .selectFrom("messages")
    .selectAll()
    .where("user_id", "=", userId)
    .where(sql<boolean>`lower(${sql.ref("content")}) like ${`%${escapeLike(text.toLowerCase())}%`} escape '\\'`);
  if (since !== null) q = q.where("created_at", ">=", since);
  return q.orderBy("created_at", "desc").limit(limit).execute();
}
