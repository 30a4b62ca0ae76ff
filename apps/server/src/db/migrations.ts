/** Schema migrations, written with the portable schema builder so SQLite and PostgreSQL share them; one file each in `migrations/`. */

import { SUBSCRIPTION_TYPES } from "@daysync/shared";
import { type Kysely, type Migration, type MigrationProvider, Migrator } from "kysely";
import { m001Core } from "./migrations/001_core.ts";
import { m002DevicesPush } from "./migrations/002_devices_push.ts";
import { m003Uploads } from "./migrations/003_uploads.ts";
import { m004ExpiredMessages } from "./migrations/004_expired_messages.ts";
import { m005ServerKeys } from "./migrations/005_server_keys.ts";
import { m006MessageDevice } from "./migrations/006_message_device.ts";
import { m007PairingOffers } from "./migrations/007_pairing_offers.ts";
import { m008Spaces } from "./migrations/008_spaces.ts";
import { m009SendIndexes } from "./migrations/009_send_indexes.ts";
import { m010Admin } from "./migrations/010_admin.ts";
import { m011Payments } from "./migrations/011_payments.ts";
import { m012Identities } from "./migrations/012_identities.ts";
import { m013MessageFileSize } from "./migrations/013_message_file_size.ts";
import { m014Email } from "./migrations/014_email.ts";
import { m015FreshChecks } from "./migrations/015_fresh_checks.ts";
import { m016Keys } from "./migrations/016_keys.ts";
import { m017KeyRequests } from "./migrations/017_key_requests.ts";
import { m018PairingKeys } from "./migrations/018_pairing_keys.ts";
import { m019SealedMessages } from "./migrations/019_sealed_messages.ts";
import { m020KeyRecovery } from "./migrations/020_key_recovery.ts";
import { m021SealedUploads } from "./migrations/021_sealed_uploads.ts";
import { m023PairingApprovedBy } from "./migrations/023_pairing_approved_by.ts";
import { m024KeyRequestExchange } from "./migrations/024_key_request_exchange.ts";
import { m025Invites } from "./migrations/025_invites.ts";
import { m026AuditSequence } from "./migrations/026_audit_sequence.ts";
import { m027DeviceList } from "./migrations/027_device_list.ts";
import { m028DeletionNotes } from "./migrations/028_deletion_notes.ts";
import { m029PairingTypedExchange } from "./migrations/029_pairing_typed_exchange.ts";
import { m030FlowInvite } from "./migrations/030_flow_invite.ts";
import { m031StartOverRequest } from "./migrations/031_start_over_request.ts";
import { m032Rooms } from "./migrations/032_rooms.ts";
import type { Database } from "./schema.ts";

export { FIRST_ADMIN_CLAIM } from "./migrations/010_admin.ts";

const migrations: Record<string, Migration> = {
  "001_core": m001Core,
  "002_devices_push": m002DevicesPush,
  "003_uploads": m003Uploads,
  "004_expired_messages": m004ExpiredMessages,
  "005_server_keys": m005ServerKeys,
  "006_message_device": m006MessageDevice,
  "007_pairing_offers": m007PairingOffers,
  "008_spaces": m008Spaces,
  "009_send_indexes": m009SendIndexes,
  "010_admin": m010Admin,
  "011_payments": m011Payments,
  "012_identities": m012Identities,
  "013_message_file_size": m013MessageFileSize,
  "014_email": m014Email,
  "015_fresh_checks": m015FreshChecks,
  "016_keys": m016Keys,
  "017_key_requests": m017KeyRequests,
  "018_pairing_keys": m018PairingKeys,
  "019_sealed_messages": m019SealedMessages,
  "020_key_recovery": m020KeyRecovery,
  "021_sealed_uploads": m021SealedUploads,
  "023_pairing_approved_by": m023PairingApprovedBy,
  "024_key_request_exchange": m024KeyRequestExchange,
  "025_invites": m025Invites,
  "026_audit_sequence": m026AuditSequence,
  "027_device_list": m027DeviceList,
  "028_deletion_notes": m028DeletionNotes,
  "029_pairing_typed_exchange": m029PairingTypedExchange,
  "030_flow_invite": m030FlowInvite,
  "031_start_over_request": m031StartOverRequest,
  "032_rooms": m032Rooms,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** The migrator of our migrations; tests use it to stop at an older one (`migrateTo`). */
export function createMigrator(db: Kysely<Database>, options: { schema?: string } = {}): Migrator {
  // On PostgreSQL the migrator must be told the schema: it looks for its tables in every schema otherwise.
  return new Migrator({ db, provider, ...(options.schema ? { migrationTableSchema: options.schema } : {}) });
}

/** Brings the schema up to date and makes sure the plans exist. */
export async function migrate(db: Kysely<Database>, options: { schema?: string } = {}): Promise<void> {
  const { error, results } = await createMigrator(db, options).migrateToLatest();
  const failed = results?.find((r) => r.status === "Error");
  if (error || failed) throw new Error(`Migration ${failed?.migrationName ?? ""} failed: ${String(error)}`);
  for (const t of SUBSCRIPTION_TYPES) {
    await db
      .insertInto("subscriptions_types")
      .values({ ...t })
      .onConflict((oc) => oc.column("id").doUpdateSet({ ...t }))
      .execute();
  }
}
