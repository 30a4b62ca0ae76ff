import type { Kysely, Migration } from "kysely";

/**
 * End-to-end encryption, step 7 (docs/protocol/encryption.md, "Sealed messages"): a message sealed on its device names the epoch it was
 * sealed under (null: stored in clear, as every message before) and carries its sealed preview; a file message will
 * carry its sealed file key. The day's summary names the epoch of its `last_message` when that is a sealed preview,
 * and the message and device it came from, which the preview's associated data binds it to.
 */
export const m019SealedMessages: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("messages").addColumn("epoch", "integer").execute();
    await db.schema
      .alterTable("messages")
      .addColumn("preview", "text", (c) => c.notNull().defaultTo(""))
      .execute();
    await db.schema
      .alterTable("messages")
      .addColumn("file_key", "text", (c) => c.notNull().defaultTo(""))
      .execute();
    await db.schema.alterTable("date_messages").addColumn("last_message_epoch", "integer").execute();
    await db.schema.alterTable("date_messages").addColumn("last_message_id", "text").execute();
    await db.schema.alterTable("date_messages").addColumn("last_message_device_id", "text").execute();
  },
};
