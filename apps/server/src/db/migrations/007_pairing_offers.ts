import type { Kysely, Migration } from "kysely";

export const m007PairingOffers: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("pairing_requests").addColumn("offered_by", "text").execute();
  },
};
