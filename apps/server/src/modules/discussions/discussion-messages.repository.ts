/** Queries of a discussion's messages with their authors as members know them. */
import type { Transaction } from "kysely";
import type { Db } from "../../db/database.ts";
import type { Database, MessagesTable } from "../../db/schema.ts";

export type MessageWithAuthor = MessagesTable & { author_id: string; author_name: string };

export function createDiscussionMessagesRepository(db: Db) {
  /** Messages with their author's membership row: it stays when they leave, so they keep their name. */
  const withAuthors = () =>
    db
      .selectFrom("messages")
      .innerJoin("space_members", (join) =>
        join.onRef("space_members.space_id", "=", "messages.space_id").onRef("space_members.user_id", "=", "messages.user_id"),
      )
      .selectAll("messages")
      .select(["space_members.id as author_id", "space_members.display_name as author_name"]);

  return {
    in: (trx: Transaction<Database>) => createDiscussionMessagesRepository(trx),

    /** Every message of the discussion, oldest first. */
    list(spaceId: string): Promise<MessageWithAuthor[]> {
      return withAuthors().where("messages.space_id", "=", spaceId).orderBy("messages.created_at").orderBy("messages.id").execute();
    },

    find(spaceId: string, messageId: string): Promise<MessageWithAuthor | undefined> {
      return withAuthors().where("messages.space_id", "=", spaceId).where("messages.id", "=", messageId).executeTakeFirst();
    },
  };
}

export type DiscussionMessagesRepository = ReturnType<typeof createDiscussionMessagesRepository>;
