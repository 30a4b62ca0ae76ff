/** Queries of a discussion's messages with their authors as members know them, and of the discussion's summary. */
import type { Transaction } from "kysely";
import type { Db } from "../../db/database.ts";
import type { Database, MessagesTable, SpaceMembersTable } from "../../db/schema.ts";

type Executor = Db | Transaction<Database>;

/** A discussion's row, read as numbers, with what is counted over its members and messages. */
export interface DiscussionRow {
  id: string;
  public_id: string;
  title: string;
  created_at: number;
  ends_at: number;
  member_count: number;
  last_message_at: number | null;
}

/** The same row with the viewing member's own part. */
export interface MyDiscussionRow extends DiscussionRow {
  member_id: string;
  display_name: string;
  role: SpaceMembersTable["role"];
  unread: number;
}

const numberOrNull = (value: number | string | null | undefined) => (value === null || value === undefined ? null : Number(value));

function toRow(r: {
  id: string;
  public_id: string | null;
  title: string;
  created_at: number;
  ends_at: number | null;
  member_count: number | string | null;
  last_message_at: number | string | null;
}): DiscussionRow {
  return {
    id: r.id,
    public_id: r.public_id ?? "",
    title: r.title,
    created_at: Number(r.created_at),
    ends_at: Number(r.ends_at),
    member_count: Number(r.member_count ?? 0),
    last_message_at: numberOrNull(r.last_message_at),
  };
}

export type MessageWithAuthor = MessagesTable & { author_id: string; author_name: string };

export function createDiscussionMessagesRepository(db: Executor) {
  /** Messages with their author's membership row: it stays when they leave, so they keep their name. */
  const withAuthors = () =>
    db
      .selectFrom("messages")
      .innerJoin("space_members", (join) =>
        join.onRef("space_members.space_id", "=", "messages.space_id").onRef("space_members.user_id", "=", "messages.user_id"),
      )
      .selectAll("messages")
      .select(["space_members.id as author_id", "space_members.display_name as author_name"]);

  /** The discussion's row with its active members counted and its newest message's time. */
  const discussions = () =>
    db
      .selectFrom("spaces")
      .select([
        "spaces.id",
        "spaces.public_id",
        "spaces.title",
        "spaces.created_at",
        "spaces.ends_at",
        (eb) =>
          eb
            .selectFrom("space_members as m")
            .select((c) => c.fn.countAll<number>().as("n"))
            .whereRef("m.space_id", "=", "spaces.id")
            .where("m.left_at", "is", null)
            .as("member_count"),
        (eb) =>
          eb
            .selectFrom("messages as lm")
            .select((c) => c.fn.max<number>("lm.created_at").as("t"))
            .whereRef("lm.space_id", "=", "spaces.id")
            .as("last_message_at"),
      ])
      .where("spaces.kind", "=", "discussion");

  return {
    in: (trx: Transaction<Database>) => createDiscussionMessagesRepository(trx),

    /** Every message of the discussion, oldest first. */
    list(spaceId: string): Promise<MessageWithAuthor[]> {
      return withAuthors().where("messages.space_id", "=", spaceId).orderBy("messages.created_at").orderBy("messages.id").execute();
    },

    find(spaceId: string, messageId: string): Promise<MessageWithAuthor | undefined> {
      return withAuthors().where("messages.space_id", "=", spaceId).where("messages.id", "=", messageId).executeTakeFirst();
    },

    async discussion(spaceId: string): Promise<DiscussionRow | undefined> {
      const row = await discussions().where("spaces.id", "=", spaceId).executeTakeFirst();
      return row && toRow(row);
    },

    /**
     * The discussion as this active member sees it; unread counts the others' messages after the member's
     * `last_read_at`.
     */
    async myDiscussion(spaceId: string, userId: string): Promise<MyDiscussionRow | undefined> {
      const row = await discussions()
        .innerJoin("space_members as me", "me.space_id", "spaces.id")
        .select([
          "me.id as member_id",
          "me.display_name",
          "me.role",
          (eb) =>
            eb
              .selectFrom("messages as um")
              .select((c) => c.fn.countAll<number>().as("n"))
              .whereRef("um.space_id", "=", "spaces.id")
              .whereRef("um.created_at", ">", "me.last_read_at")
              .where("um.user_id", "<>", userId)
              .as("unread"),
        ])
        .where("spaces.id", "=", spaceId)
        .where("me.user_id", "=", userId)
        .where("me.left_at", "is", null)
        .executeTakeFirst();
      return (
        row && { ...toRow(row), member_id: row.member_id, display_name: row.display_name, role: row.role, unread: Number(row.unread ?? 0) }
      );
    },
  };
}

export type DiscussionMessagesRepository = ReturnType<typeof createDiscussionMessagesRepository>;
