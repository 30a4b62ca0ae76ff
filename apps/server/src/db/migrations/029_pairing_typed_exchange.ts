import type { Kysely, Migration } from "kysely";

/**
 * Issue 41, one code, one round (docs/protocol/encryption.md, "QR pairing handover", typed code): a pairing request
 * whose code is typed runs the approval's CPace exchange itself. The row keeps the new device's share, the answering
 * session with its key, share and confirmation, the new device's confirmation, the handover's tag and the wrong codes.
 */
export const m029PairingTypedExchange: Migration = {
  async up(db: Kysely<unknown>) {
    const columns: Array<[string, "text" | "integer"]> = [
      ["requester_share", "text"],
      ["answered_by", "text"],
      ["approver_key_id", "text"],
      ["approver_public_key", "text"],
      ["approver_share", "text"],
      ["approver_confirmation", "text"],
      ["requester_confirmation", "text"],
      ["handover_confirmation", "text"],
    ];
    for (const [name, type] of columns) await db.schema.alterTable("pairing_requests").addColumn(name, type).execute();
    await db.schema
      .alterTable("pairing_requests")
      .addColumn("failures", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
  },
};
