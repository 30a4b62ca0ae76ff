/** Every row of one account, in every table: what account deletion erases. */
import { sql, type Transaction } from "kysely";
import type { Db } from "../../db/database.ts";
import type { Database } from "../../db/schema.ts";

/** What a deleted admin's earlier entries in the audit say after their email. */
export const DELETED_ACTOR = " (deleted account)";

/** Over the database, or over a transaction (`.in(trx)`) for work that must commit together. */
export function createAccountDeletionRepository(db: Db) {
  return {
    in: (trx: Transaction<Database>) => createAccountDeletionRepository(trx),

    /**
     * Deletes the account and everything still of it (children first, so foreign keys hold on both engines), and
     * erases it from the admin audit (its entries stay, naming "a deleted account"; an admin's own actions keep who
     * did them, their email marked "(deleted account)", since an audit that forgets its actors is no audit). Returns the ids of the uploads
     * whose bytes the caller removes once this commits. Discussions it created or joined are dealt with before.
     */
    async erase(userId: string): Promise<string[]> {
      const uploads = await db
        .selectFrom("uploads")
        .select("id")
        .where((eb) => eb.or([eb("user_id", "=", userId), eb("space_id", "=", userId)]))
        .execute();
      await db.deleteFrom("password_resets").where("user_id", "=", userId).execute();
      await db.deleteFrom("email_tokens").where("user_id", "=", userId).execute();
      await db.deleteFrom("email_sends").where("user_id", "=", userId).execute();
      await db.deleteFrom("identities").where("user_id", "=", userId).execute();
      await db.deleteFrom("auth_flows").where("link_user_id", "=", userId).execute();
      await db.deleteFrom("payment_checkouts").where("user_id", "=", userId).execute();
      await db.deleteFrom("payment_subscriptions").where("user_id", "=", userId).execute();
      await db.deleteFrom("payment_customers").where("user_id", "=", userId).execute();
      await db.deleteFrom("push_subscriptions").where("user_id", "=", userId).execute();
      await db.deleteFrom("key_recovery").where("user_id", "=", userId).execute();
      await db.deleteFrom("key_wraps").where("user_id", "=", userId).execute();
      await db.deleteFrom("key_roster").where("user_id", "=", userId).execute();
      await db.deleteFrom("key_epochs").where("user_id", "=", userId).execute();
      await db.deleteFrom("sessions").where("user_id", "=", userId).execute();
      await db.deleteFrom("pairing_requests").where("user_id", "=", userId).execute();
      await db
        .deleteFrom("uploads")
        .where((eb) => eb.or([eb("user_id", "=", userId), eb("space_id", "=", userId)]))
        .execute();
      await db
        .deleteFrom("expired_messages")
        .where((eb) => eb.or([eb("user_id", "=", userId), eb("space_id", "=", userId)]))
        .execute();
      await db
        .deleteFrom("messages")
        .where((eb) => eb.or([eb("user_id", "=", userId), eb("space_id", "=", userId)]))
        .execute();
      await db.deleteFrom("date_messages").where("user_id", "=", userId).execute();
      await db
        .deleteFrom("space_members")
        .where((eb) => eb.or([eb("user_id", "=", userId), eb("space_id", "=", userId)]))
        .execute();
      await db.deleteFrom("spaces").where("id", "=", userId).execute();
      await db.deleteFrom("user_events").where("user_id", "=", userId).execute();
      await db.updateTable("users").set({ actual_subscription_id: "" }).where("id", "=", userId).execute();
      await db.deleteFrom("subscriptions").where("user_id", "=", userId).execute();
      await db
        .updateTable("admin_audit")
        .set({ target_id: null, target_label: "a deleted account" })
        .where("target_id", "=", userId)
        .execute();
      await db
        .updateTable("admin_audit")
        .set({ actor_id: null, actor_label: sql<string>`actor_label || ${DELETED_ACTOR}` })
        .where("actor_id", "=", userId)
        .execute();
      await db.deleteFrom("users").where("id", "=", userId).execute();
      return uploads.map((u) => u.id);
    },
  };
}

export type AccountDeletionRepository = ReturnType<typeof createAccountDeletionRepository>;
