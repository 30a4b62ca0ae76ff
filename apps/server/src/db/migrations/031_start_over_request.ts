import type { Kysely, Migration } from "kysely";

/**
 * Issue 43, decision 021: a locked device may ask to start over while another device still holds the key; the
 * holders are told and can cancel, and after 24 hours without a cancel the asking device may start over.
 */
export const m031StartOverRequest: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("users").addColumn("key_start_over_at", "bigint").execute();
    await db.schema.alterTable("users").addColumn("key_start_over_session_id", "text").execute();
  },
};
