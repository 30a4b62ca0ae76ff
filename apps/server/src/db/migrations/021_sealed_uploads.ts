import type { Kysely, Migration } from "kysely";

/**
 * End-to-end encryption, step 9 (docs/protocol/encryption.md, "File records"): a finished upload names the epoch its file message was
 * sealed under (null: a file in clear). Its file is then served as opaque bytes under the message's id, never a name:
 * the upload row keeps none. While the upload runs, the sealed name, preview and key wait in its tus metadata, as a
 * clear upload's name does.
 */
export const m021SealedUploads: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("uploads").addColumn("epoch", "integer").execute();
  },
};
