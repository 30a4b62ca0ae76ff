/**
 * Queries of days and messages. Messages are scoped to their space (decision 016): a personal space's id is its
 * owner's user id, so the "user" of a day query is also the space of its messages; `user_id` is only the author.
 */
import { sql, type Transaction } from "kysely";
import { compiledOnce } from "../../db/compiled-query.ts";
import type { Db } from "../../db/database.ts";
import type { Database, DateMessagesTable, MessagesTable } from "../../db/schema.ts";
import { createPlansRepository } from "../plans/index.ts";

const SUMMARY_LENGTH = 200;

type Summarised = Pick<MessagesTable, "type" | "content" | "filename" | "epoch" | "preview">;

/** What a day summary shows of its last message: the start of a text, a file's name, or a sealed message's sealed preview. */
export function summaryText(message: Summarised): string {
  if (message.epoch !== null) return message.preview;
  return message.type === "text" ? message.content.slice(0, SUMMARY_LENGTH) : message.filename;
}

/** The epoch a day's summary is sealed under (null: in clear); the database's integer may come back as text. */
const summaryEpoch = (message: Pick<MessagesTable, "epoch">) => (message.epoch === null ? null : Number(message.epoch));

// The send's two statements here, built once (see `compiledOnce`).
const countIntoDayQuery = compiledOnce<
  "id" | "userId" | "date" | "dayKey" | "time" | "type" | "summary" | "summaryEpoch" | "messageId" | "deviceId" | "now",
  DateMessagesTable
>(
  (_db, p) => sql<DateMessagesTable>`insert into date_messages
      (id, user_id, date, day_key, last_message_time, last_message_type, last_message, last_message_epoch, last_message_id,
       last_message_device_id, count_messages, created_at, updated_at)
    values (${p.id}, ${p.userId}, ${p.date}, ${p.dayKey}, ${p.time}, ${p.type}, ${p.summary}, ${p.summaryEpoch},
      ${p.messageId}, ${p.deviceId}, 1, ${p.now}, ${p.now})
    on conflict (user_id, day_key) do update set
      count_messages = date_messages.count_messages + 1,
      last_message_time = excluded.last_message_time,
      last_message_type = excluded.last_message_type,
      last_message = excluded.last_message,
      last_message_epoch = excluded.last_message_epoch,
      last_message_id = excluded.last_message_id,
      last_message_device_id = excluded.last_message_device_id,
      updated_at = excluded.updated_at
    returning *`,
);
const messageColumns = [
  "id",
  "space_id",
  "user_id",
  "date_message_id",
  "type",
  "content",
  "filename",
  "file_url",
  "date",
  "time",
  "url",
  "created_at",
  "file_size",
  "device_id",
  "device_name",
  "epoch",
  "preview",
  "file_key",
  "generation",
  "sender_key_id",
] as const satisfies readonly (keyof MessagesTable)[];
const insertMessageQuery = compiledOnce<keyof MessagesTable, { expired: boolean | number }>((db: Db, p) =>
  db
    .insertInto("messages")
    .values(Object.fromEntries(messageColumns.map((column) => [column, p[column]])) as Record<keyof MessagesTable, never>)
    .onConflict((oc) => oc.column("id").doNothing())
    .returning(sql<boolean | number>`exists (select 1 from expired_messages where expired_messages.id = messages.id)`.as("expired")),
);

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Over the database, or over a transaction (`createMessagesRepository(trx)`, or `.in(trx)`) for work that must
 * commit together.
 */
export function createMessagesRepository(db: Db) {
  /** The oldest creation time still live for the user at `now` (null: unlimited retention, everything is live). */
  async function retentionCutoff(userId: string, now: number): Promise<number | null> {
    const minutes = await createPlansRepository(db).retentionOf(userId);
    return cutoffOf(minutes, now);
  }

  /**
   * The user's days (all, or those of `dayIds`), newest first, each with the summary of its live messages only:
   * those created at or after `since`; a day with none has an empty summary. With `since` null (unlimited
   * retention) nothing expires and the stored summary is exact, so it is served as is.
   */
  async function liveDays(userId: string, since: number | null, dayIds?: readonly string[]): Promise<DateMessagesTable[]> {
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
          .where("space_id", "=", userId)
          .where("created_at", ">=", since);
        if (dayIds) ranked = ranked.where("date_message_id", "in", dayIds);
        return ranked;
      })
      .selectFrom("ranked")
      .innerJoin("messages as m", "m.id", "ranked.id")
      .select([
        "ranked.live_count",
        "m.date_message_id",
        "m.type",
        "m.time",
        "m.content",
        "m.filename",
        "m.epoch",
        "m.preview",
        "m.id",
        "m.device_id",
      ])
      .where("ranked.rank", "=", 1)
      .execute();
    const byDay = new Map(newest.map((m) => [m.date_message_id, m]));
    return days.map((day) => {
      const m = byDay.get(day.id);
      return m
        ? {
            ...day,
            last_message: summaryText(m),
            last_message_epoch: summaryEpoch(m),
            last_message_id: m.id,
            last_message_device_id: m.device_id,
            last_message_time: m.time,
            last_message_type: m.type,
            count_messages: Number(m.live_count),
          }
        : {
            ...day,
            last_message: "",
            last_message_epoch: null,
            last_message_id: null,
            last_message_device_id: null,
            last_message_time: "",
            last_message_type: "",
            count_messages: 0,
          };
    });
  }

  return {
    in: (trx: Transaction<Database>) => createMessagesRepository(trx),
    retentionCutoff,
    liveDays,

    /** Stores days' recomputed summaries (see `liveDays`). */
    async storeDaySummaries(days: readonly DateMessagesTable[], now: number): Promise<void> {
      for (const day of days) {
        await db
          .updateTable("date_messages")
          .set({
            last_message: day.last_message,
            last_message_epoch: day.last_message_epoch,
            last_message_id: day.last_message_id,
            last_message_device_id: day.last_message_device_id,
            last_message_time: day.last_message_time,
            last_message_type: day.last_message_type,
            count_messages: day.count_messages,
            updated_at: now,
          })
          .where("id", "=", day.id)
          .execute();
      }
    },

    /**
     * Counts a new message into its calendar day's stored summary, creating the day when it is the first (safe
     * when two sends race), in one statement; returns the day as stored. Called before the message is stored
     * (it needs the day's id): when storing it fails, the transaction rolls back and the count with it.
     */
    async countIntoDay(
      userId: string,
      day: { id: string; date: string; dayKey: string },
      message: Summarised & Pick<MessagesTable, "id" | "device_id" | "time">,
      now: number,
    ): Promise<DateMessagesTable> {
      const { rows } = await countIntoDayQuery(db, {
        id: day.id,
        userId,
        date: day.date,
        dayKey: day.dayKey,
        time: message.time,
        type: message.type,
        summary: summaryText(message),
        summaryEpoch: summaryEpoch(message),
        messageId: message.id,
        deviceId: message.device_id,
        now,
      });
      const row = rows[0];
      if (!row) throw new Error("The day upsert returned no row.");
      return row;
    },

    /**
     * How many of the day's stored messages were created before `since` (expired, not yet swept: seconds'
     * worth, found through the `messages_day` index).
     */
    async countExpiredInDay(dayId: string, since: number): Promise<number> {
      const row = await db
        .selectFrom("messages")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("date_message_id", "=", dayId)
        .where("created_at", "<", since)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /**
     * Stores the message unless its id is taken (by anyone): "taken" then, with nothing written and no error.
     * "expired" when the id was that of a message the sweep deleted (see `ExpiredMessagesTable`): the row is
     * written then, and the caller rolls back.
     */
    async insertMessage(message: MessagesTable): Promise<"stored" | "taken" | "expired"> {
      const room = { generation: message.generation ?? null, sender_key_id: message.sender_key_id ?? null };
      const [row] = (await insertMessageQuery(db, { ...message, ...room })).rows;
      if (!row) return "taken";
      return row.expired ? "expired" : "stored";
    },

    async findMessage(id: string): Promise<MessagesTable | undefined> {
      return db.selectFrom("messages").selectAll().where("id", "=", id).executeTakeFirst();
    },

    /** A message that was deleted, by the retention sweep or by its owner (see `ExpiredMessagesTable`). */
    async findExpiredMessage(id: string) {
      return db.selectFrom("expired_messages").select(["id", "user_id", "space_id"]).where("id", "=", id).executeTakeFirst();
    },

    /** Ids of every stored message of the user's day (expired ones not yet swept included). */
    async dayMessageIds(userId: string, dayId: string): Promise<string[]> {
      const rows = await db
        .selectFrom("messages")
        .select("id")
        .where("space_id", "=", userId)
        .where("date_message_id", "=", dayId)
        .execute();
      return rows.map((r) => r.id);
    },

    /**
     * Deletes those of the space's messages that are still there (another process may have deleted them since they
     * were listed), remembering their ids so that a late retry of their send is refused instead of storing them
     * again; returns the ids it deleted and the days they belonged to (none in a discussion). The one way messages
     * are deleted: on expiry by the sweep, by their owner, and in a discussion by their author or its creator.
     */
    async deleteMessages(spaceId: string, candidates: readonly string[], now: number): Promise<{ ids: string[]; dayIds: string[] }> {
      if (candidates.length === 0) return { ids: [], dayIds: [] };
      const present = await db
        .selectFrom("messages")
        .select(["id", "date_message_id"])
        .where("id", "in", candidates)
        .where("space_id", "=", spaceId)
        .execute();
      if (present.length === 0) return { ids: [], dayIds: [] };
      const ids = present.map((m) => m.id);
      await db
        .insertInto("expired_messages")
        .columns(["id", "user_id", "space_id", "expired_at"])
        .expression((eb) =>
          eb
            .selectFrom("messages")
            .select(["id", "user_id", "space_id", sql<number>`cast(${now} as bigint)`.as("expired_at")])
            .where("id", "in", ids)
            .where("space_id", "=", spaceId),
        )
        .onConflict((oc) => oc.column("id").doNothing())
        .execute();
      await db.deleteFrom("messages").where("id", "in", ids).where("space_id", "=", spaceId).execute();
      return { ids, dayIds: [...new Set(present.flatMap((m) => m.date_message_id ?? []))] };
    },

    async forgetExpiredMessages(before: number): Promise<void> {
      await db.deleteFrom("expired_messages").where("expired_at", "<", before).execute();
    },

    /** Live messages of a day, oldest first; `since` is the retention cut-off (null: keep all). */
    async listDayMessages(userId: string, dayId: string, since: number | null): Promise<MessagesTable[]> {
      let q = db.selectFrom("messages").selectAll().where("space_id", "=", userId).where("date_message_id", "=", dayId);
      if (since !== null) q = q.where("created_at", ">=", since);
      return q.orderBy("created_at").orderBy("id").execute();
    },

    /**
     * Live messages of the user's personal space, newest first, from just before `after` (by creation time, then id),
     * at most `limit`.
     */
    async pageMessages(userId: string, since: number | null, after: MessagesTable | undefined, limit: number): Promise<MessagesTable[]> {
      let q = db.selectFrom("messages").selectAll().where("space_id", "=", userId);
      if (since !== null) q = q.where("created_at", ">=", since);
      if (after) {
        const at = Number(after.created_at);
        q = q.where((eb) => eb.or([eb("created_at", "<", at), eb.and([eb("created_at", "=", at), eb("id", "<", after.id)])]));
      }
      return q.orderBy("created_at", "desc").orderBy("id", "desc").limit(limit).execute();
    },

    /**
     * Live messages in clear of the user's personal space containing `text` (case-insensitive), newest first; sealed
     * ones are searched on the devices.
     */
    async searchMessages(userId: string, text: string, since: number | null, limit: number): Promise<MessagesTable[]> {
      let q = db
        .selectFrom("messages")
        .selectAll()
        .where("space_id", "=", userId)
        .where("epoch", "is", null)
        .where(sql<boolean>`lower(${sql.ref("content")}) like ${`%${escapeLike(text.toLowerCase())}%`} escape '\\'`);
      if (since !== null) q = q.where("created_at", ">=", since);
      return q.orderBy("created_at", "desc").limit(limit).execute();
    },
  };
}

/** The oldest creation time still live at `now` for a retention of `minutes` (null: unlimited). */
export function cutoffOf(minutes: number | null, now: number): number | null {
  return minutes === null ? null : now - minutes * 60_000;
}

export type MessagesRepository = ReturnType<typeof createMessagesRepository>;

/** Account deletion (`flows/account-deletion.ts`): the account's messages, the ids remembered of deleted ones, its days. */
export async function eraseMessagesOfAccount(db: Db, userId: string): Promise<void> {
  await db
    .deleteFrom("expired_messages")
    .where((eb) => eb.or([eb("user_id", "=", userId), eb("space_id", "=", userId)]))
    .execute();
  await db
    .deleteFrom("messages")
    .where((eb) => eb.or([eb("user_id", "=", userId), eb("space_id", "=", userId)]))
    .execute();
  await db.deleteFrom("date_messages").where("user_id", "=", userId).execute();
}

/** A device's new name on the messages it sent (the devices module renames it, in the same transaction). */
export async function renameDeviceOnMessages(db: Db, userId: string, sessionId: string, name: string): Promise<void> {
  await db.updateTable("messages").set({ device_name: name }).where("user_id", "=", userId).where("device_id", "=", sessionId).execute();
}

/** A discussion's messages and the ids remembered of deleted ones, as it ends. For the discussions module, in its transaction. */
export async function eraseMessagesOfSpace(db: Db, spaceId: string): Promise<void> {
  await db.deleteFrom("messages").where("space_id", "=", spaceId).execute();
  await db.deleteFrom("expired_messages").where("space_id", "=", spaceId).execute();
}

/** A deleted account's messages in a discussion, and the ids remembered of them; the ids deleted. For the discussions module. */
export async function eraseAuthorInSpace(db: Db, spaceId: string, authorId: string): Promise<string[]> {
  const messages = await db.selectFrom("messages").select("id").where("space_id", "=", spaceId).where("user_id", "=", authorId).execute();
  const ids = messages.map((m) => m.id);
  if (ids.length > 0) await db.deleteFrom("messages").where("space_id", "=", spaceId).where("id", "in", ids).execute();
  await db.deleteFrom("expired_messages").where("space_id", "=", spaceId).where("user_id", "=", authorId).execute();
  return ids;
}
