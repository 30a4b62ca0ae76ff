import type { Migration } from "kysely";

export const m009SendIndexes: Migration = {
  // No query reads messages by author and time (days and discussions go by space); every send paid for the index.
  async up(db) {
    await db.schema.dropIndex("messages_user_time").execute();
  },
};
