import type { Kysely, Migration } from "kysely";

export const m006MessageDevice: Migration = {
  async up(db: Kysely<unknown>) {
    // A device's own name, when the user gave it one (null: named from its User-Agent).
    await db.schema.alterTable("sessions").addColumn("name", "text").execute();
    // The sending session, and its name then: kept after the session ends, updated when it is renamed.
    await db.schema.alterTable("messages").addColumn("device_id", "text").execute();
    await db.schema.alterTable("messages").addColumn("device_name", "text").execute();
  },
};
