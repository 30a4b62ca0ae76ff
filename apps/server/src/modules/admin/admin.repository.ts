/** What the admin page reads: accounts with their plan and use, the server's figures, and the audit log. */
import type { AdminAccount } from "@daysync/shared";
import { type Kysely, sql } from "kysely";
import type { Db } from "../../db/database.ts";
import type { AdminAuditTable, Database } from "../../db/schema.ts";
import { usersWithCurrentPlan } from "../plans/index.ts";

const ACCOUNTS_SHOWN = 200;
const AUDIT_SHOWN = 200;

/** `text` as a LIKE pattern that matches it anywhere, its own % and _ taken literally. */
const containing = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export function createAdminRepository(db: Db) {
  return {
    /** Accounts whose name or email contains `q` (all when empty), newest first; at most 200. */
    async accounts(q: string, onlyId?: string): Promise<AdminAccount[]> {
      let query = usersWithCurrentPlan(db).select((eb) => [
        "users.id",
        "users.name",
        "users.email",
        "users.role",
        "users.disabled_at",
        "users.created_at",
        "subscriptions.title_subscription",
        "subscriptions.subscription_type_id",
        "subscriptions.date_expiration_subscription",
        eb
          .selectFrom("uploads")
          .select((s) => s.fn.coalesce(s.fn.sum<number>("uploads.size"), sql<number>`0`).as("n"))
          .whereRef("uploads.user_id", "=", "users.id")
          .as("storage_used"),
        eb
          .selectFrom("sessions")
          .select((s) => s.fn.countAll<number>().as("n"))
          .whereRef("sessions.user_id", "=", "users.id")
          .as("devices"),
        eb
          .selectFrom("sessions")
          .select((s) => s.fn.max("sessions.last_seen_at").as("n"))
          .whereRef("sessions.user_id", "=", "users.id")
          .as("last_seen_at"),
      ]);
      if (onlyId) query = query.where("users.id", "=", onlyId);
      if (q) {
        const pattern = containing(q);
        query = query.where((eb) =>
          eb.or([
            sql<boolean>`lower(${eb.ref("users.name")}) like ${pattern} escape '\\'`,
            sql<boolean>`users.email like ${pattern} escape '\\'`,
          ]),
        );
      }
      const rows = await query.orderBy("users.created_at", "desc").orderBy("users.id").limit(ACCOUNTS_SHOWN).execute();
      return rows.map((r) => ({
        id: r.id,
        name: r.name,
        email: r.email,
        role: r.role,
        disabled_at: r.disabled_at === null ? null : Number(r.disabled_at),
        title_subscription: r.title_subscription,
        subscription_type_id: Number(r.subscription_type_id),
        date_expiration_subscription: Number(r.date_expiration_subscription),
        storage_used: Number(r.storage_used ?? 0),
        devices: Number(r.devices ?? 0),
        last_seen_at: r.last_seen_at == null ? null : Number(r.last_seen_at),
        created_at: Number(r.created_at),
      }));
    },

    async counts(now: number): Promise<{ accounts: number; openDiscussions: number; storageUsed: number }> {
      const [accounts, discussions, storage] = await Promise.all([
        db
          .selectFrom("users")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .executeTakeFirst(),
        db
          .selectFrom("spaces")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("kind", "=", "discussion")
          .where("ends_at", ">", now)
          .executeTakeFirst(),
        db
          .selectFrom("uploads")
          .select((eb) => eb.fn.coalesce(eb.fn.sum<number>("size"), sql<number>`0`).as("n"))
          .executeTakeFirst(),
      ]);
      return { accounts: Number(accounts?.n ?? 0), openDiscussions: Number(discussions?.n ?? 0), storageUsed: Number(storage?.n ?? 0) };
    },

    /** Adds counts to hours (their start, ms): each process adds its own. */
    async addActivity(hours: ReadonlyArray<{ hour: number; messages: number; files: number }>): Promise<void> {
      for (const h of hours) {
        await db
          .insertInto("activity_hours")
          .values(h)
          .onConflict((oc) =>
            oc.column("hour").doUpdateSet((eb) => ({
              messages: eb("activity_hours.messages", "+", eb.ref("excluded.messages")),
              files: eb("activity_hours.files", "+", eb.ref("excluded.files")),
            })),
          )
          .execute();
      }
    },

    async activitySince(since: number): Promise<Array<{ hour: number; messages: number; files: number }>> {
      const rows = await db.selectFrom("activity_hours").selectAll().where("hour", ">=", since).orderBy("hour").execute();
      return rows.map((r) => ({ hour: Number(r.hour), messages: Number(r.messages), files: Number(r.files) }));
    },

    async pruneActivity(before: number): Promise<void> {
      await db.deleteFrom("activity_hours").where("hour", "<", before).execute();
    },

    /**
     * Writes an entry under the next number of the audit's counter: one upsert that both engines serialise on its row,
     * so parallel admin actions never share a number (reading max(seq) + 1 did, on PostgreSQL); `seq` is unique too.
     */
    async audit(entry: Omit<AdminAuditTable, "seq">): Promise<void> {
      const write = async (trx: Kysely<Database>) => {
        const { value } = await trx
          .insertInto("admin_audit_counter")
          .values({ id: 1, value: 1 })
          .onConflict((oc) => oc.column("id").doUpdateSet((eb) => ({ value: eb("admin_audit_counter.value", "+", 1) })))
          .returning("value")
          .executeTakeFirstOrThrow();
        await trx
          .insertInto("admin_audit")
          .values({ ...entry, seq: Number(value) })
          .execute();
      };
      await (db.isTransaction ? write(db) : db.transaction().execute(write));
    },

    /** The latest entries of the audit log, newest first. */
    auditLog(): Promise<AdminAuditTable[]> {
      return db.selectFrom("admin_audit").selectAll().orderBy("seq", "desc").limit(AUDIT_SHOWN).execute();
    },
  };
}

export type AdminRepository = ReturnType<typeof createAdminRepository>;

/** What a deleted admin's earlier entries in the audit say after their email. */
export const DELETED_ACTOR = " (deleted account)";

/**
 * Account deletion (`flows/account-deletion.ts`): the audit forgets the account. Its entries stay, naming "a deleted
 * account"; an admin's own actions keep who did them, their email marked "(deleted account)", since an audit that
 * forgets its actors is no audit.
 */
export async function forgetAccountInAudit(db: Db, userId: string): Promise<void> {
  await db.updateTable("admin_audit").set({ target_id: null, target_label: "a deleted account" }).where("target_id", "=", userId).execute();
  await db
    .updateTable("admin_audit")
    .set({ actor_id: null, actor_label: sql<string>`actor_label || ${DELETED_ACTOR}` })
    .where("actor_id", "=", userId)
    .execute();
}
