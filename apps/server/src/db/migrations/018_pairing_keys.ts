import type { Kysely, Migration } from "kysely";

/**
 * End-to-end encryption, step 5 (docs/protocol/encryption.md, "QR pairing handover"): a QR pairing carries the new device's public key and
 * the proof that it holds the link's secret to the approving device, and the approval's handover (the epoch keys
 * wrapped for that key, and its roster row, as JSON text) to the exchange, which moves it into key_wraps and key_roster.
 */
export const m018PairingKeys: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("pairing_requests").addColumn("public_key", "text").execute();
    await db.schema.alterTable("pairing_requests").addColumn("key_proof", "text").execute();
    await db.schema.alterTable("pairing_requests").addColumn("handover", "text").execute();
  },
};
