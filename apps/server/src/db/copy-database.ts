/** Copies a SQLite installation into an empty PostgreSQL database: every table, in one transaction. */
import type { Kysely } from "kysely";
import { type Db, openDatabase } from "./database.ts";
import type { Database } from "./schema.ts";

/** Every table, parents before children so foreign keys hold at every insert. Plans are made by the migrations. */
export const COPIED_TABLES = [
  ["users", "id"],
  ["subscriptions", "id"],
  ["sessions", "id"],
  ["key_epochs", "user_id, epoch"],
  ["key_wraps", "user_id, epoch, recipient_key_id"],
  ["key_roster", "user_id, epoch, key_id"],
  ["key_requests", "id"],
  ["key_recovery", "user_id"],
  ["device_list", "user_id, seq"],
  ["identities", "id"],
  ["auth_flows", "id"],
  ["spaces", "id"],
  ["space_members", "id"],
  ["rooms", "space_id"],
  ["room_generations", "space_id, generation"],
  ["room_entries", "space_id, generation, key_id"],
  ["room_wraps", "space_id, generation, recipient_key_id, sender_key_id"],
  ["room_join_requests", "id"],
  ["room_own", "user_id, space_id, generation"],
  ["date_messages", "id"],
  ["messages", "id"],
  ["deletion_notes", "id"],
  ["user_events", "user_id, seq"],
  ["pairing_requests", "id"],
  ["push_subscriptions", "id"],
  ["uploads", "id"],
  ["expired_messages", "id"],
  ["server_keys", "name"],
  ["admin_audit", "id"],
  ["admin_audit_counter", "id"],
  ["invites", "id"],
  ["password_resets", "token_hash"],
  ["email_tokens", "token_hash"],
  ["email_sends", "id"],
  ["activity_hours", "hour"],
  ["payment_events", "id"],
  ["payment_customers", "user_id"],
  ["payment_subscriptions", "id"],
  ["payment_checkouts", "id"],
] as const satisfies ReadonlyArray<readonly [keyof Database, string]>;

/** Rows per insert: PostgreSQL takes at most 65,535 parameters in one statement. */
const BATCH = 1000;

export class TargetNotEmpty extends Error {}

/**
 * `from` is the SQLite file (migrated to the latest schema first, then `prepare`d: the caller takes a `vapid.json`
 * beside it into the database, as a server start would); `to` a postgres:// URL whose database has no Daysync data
 * yet. Returns the rows copied per table.
 */
export async function copySqliteToPostgres(
  from: string,
  to: string,
  prepare: (source: Db) => Promise<unknown> = async () => undefined,
): Promise<Record<string, number>> {
  const source = await openDatabase({ databaseFile: from });
  let target: Db | undefined;
  try {
    await prepare(source);
    target = await openDatabase({ databaseFile: "", databaseUrl: to });
    return await target.transaction().execute(async (trx) => {
      if (await trx.selectFrom("users").select("id").limit(1).executeTakeFirst()) {
        throw new TargetNotEmpty("The target database already has accounts; copy into an empty database only.");
      }
      // A server started on the target before may have made keys; the installation's own keys replace them.
      await trx.deleteFrom("server_keys").execute();
      const counts: Record<string, number> = {};
      for (const [table, key] of COPIED_TABLES) counts[table] = await copyTable(source, trx, table, key);
      return counts;
    });
  } finally {
    await target?.destroy();
    await source.destroy();
  }
}

async function copyTable(source: Db, target: Kysely<Database>, table: keyof Database, key: string): Promise<number> {
  const order = key.split(", ") as never[];
  let copied = 0;
  for (;;) {
    let page = source.selectFrom(table).selectAll();
    for (const column of order) page = page.orderBy(column);
    const rows = await page.limit(BATCH).offset(copied).execute();
    if (rows.length === 0) return copied;
    await target
      .insertInto(table)
      .values(rows as never)
      .execute();
    copied += rows.length;
  }
}
