import type { Kysely, Migration } from "kysely";

/**
 * Issue 41, gaps shown (docs/protocol/encryption.md, "Sealed messages"): the sealed notes a device leaves when it
 * deletes numbered messages or clears a day, so the other devices tell a deletion from a message that did not arrive.
 * The server cannot read them; they go with the account.
 */
export const m028DeletionNotes: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("deletion_notes")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("date", "text", (c) => c.notNull())
      .addColumn("device_id", "text", (c) => c.notNull())
      .addColumn("note", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("deletion_notes_user_date").on("deletion_notes").columns(["user_id", "date"]).execute();
  },
};
