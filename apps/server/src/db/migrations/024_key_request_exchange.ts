import type { Kysely, Migration } from "kysely";

/**
 * Issue 41: approval by a typed code (docs/protocol/encryption.md, "Approving a device") replaces the check code's
 * commit-then-reveal. A request lives ten minutes and one of the old exchange cannot be finished by the new one, so
 * the table is made again with the exchange's columns: the shares, the three confirmations and the wrong codes.
 */
export const m024KeyRequestExchange: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.dropTable("key_requests").execute();
    await db.schema
      .createTable("key_requests")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("session_id", "text", (c) => c.notNull().references("sessions.id").onDelete("cascade"))
      .addColumn("requester_share", "text", (c) => c.notNull())
      .addColumn("approver_session_id", "text")
      .addColumn("approver_share", "text")
      .addColumn("approver_confirmation", "text")
      .addColumn("requester_confirmation", "text")
      .addColumn("handover_confirmation", "text")
      .addColumn("failures", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("key_requests_user").on("key_requests").columns(["user_id", "expires_at"]).execute();
    await db.schema.createIndex("key_requests_session").on("key_requests").columns(["session_id"]).execute();
  },
};
