import type { Kysely, Migration } from "kysely";

/**
 * Issue 42: a pairing approval names the session that gave it, so the approval ends with that session (sign-out,
 * "Sign out all other devices", a password change or reset, the account disabled) and the exchange checks it is still there.
 */
export const m023PairingApprovedBy: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("pairing_requests").addColumn("approved_by", "text").execute();
  },
};
