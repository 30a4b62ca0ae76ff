import type { Kysely, Migration } from "kysely";

/**
 * End-to-end encryption, step 4 (docs/protocol/encryption.md, "Approving a device"): a locked device's request to be approved with the check
 * code. The row carries the commit-then-reveal exchange between the requesting session and the one device that
 * answers; it goes with the requesting session.
 */
export const m017KeyRequests: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("key_requests")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("session_id", "text", (c) => c.notNull().references("sessions.id").onDelete("cascade"))
      .addColumn("commitment", "text", (c) => c.notNull())
      .addColumn("approver_session_id", "text")
      .addColumn("approver_nonce", "text")
      .addColumn("requester_nonce", "text")
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .execute();
    // The account's devices list its requests; a session's open one is found by it.
    await db.schema.createIndex("key_requests_user").on("key_requests").columns(["user_id", "expires_at"]).execute();
    await db.schema.createIndex("key_requests_session").on("key_requests").columns(["session_id"]).execute();
  },
};
