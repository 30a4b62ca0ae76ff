import type { Kysely, Migration } from "kysely";

/**
 * Settings (issue 26): deleting the account or giving a password to an account made through a provider asks
 * for a fresh check. With no password to type, the check is a new sign-in at a linked provider: its flow names
 * the session it confirms (`auth_flows.confirm_session_id`), and the session keeps when that was
 * (`sessions.reauthenticated_at`), so the next request within a few minutes counts as checked.
 */
export const m015FreshChecks: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("sessions").addColumn("reauthenticated_at", "bigint").execute();
    await db.schema.alterTable("auth_flows").addColumn("confirm_session_id", "text").execute();
  },
};
