import type { Kysely, Migration } from "kysely";

export const m005ServerKeys: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("server_keys")
      .addColumn("name", "text", (c) => c.primaryKey())
      .addColumn("value", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
  },
};
