import { type Migration, sql } from "kysely";

export const m013MessageFileSize: Migration = {
  // A file message shows its size; the upload row has it, but every read of messages would have to join it.
  async up(db) {
    await db.schema.alterTable("messages").addColumn("file_size", "bigint").execute();
    await sql`update messages set file_size = (select size from uploads where uploads.message_id = messages.id and uploads.space_id = messages.space_id) where type <> 'text'`.execute(
      db,
    );
  },
};
