/** Linked identities, (issuer, subject) unique, and the one-time records of sign-in flows under way. */
import type { Transaction } from "kysely";
import type { Db } from "../../db/database.ts";
import type { AuthFlowsTable, Database, IdentitiesTable } from "../../db/schema.ts";

export function createIdentitiesRepository(db: Db) {
  return {
    in: (trx: Transaction<Database>) => createIdentitiesRepository(trx),

    find(issuer: string, subject: string): Promise<IdentitiesTable | undefined> {
      return db.selectFrom("identities").selectAll().where("issuer", "=", issuer).where("subject", "=", subject).executeTakeFirst();
    },

    ofUser(userId: string): Promise<IdentitiesTable[]> {
      return db.selectFrom("identities").selectAll().where("user_id", "=", userId).orderBy("created_at").execute();
    },

    /** False when the identity is already linked (to this or another account): the unique pair decides a race. */
    async insertIfNew(identity: IdentitiesTable): Promise<boolean> {
      const inserted = await db
        .insertInto("identities")
        .values(identity)
        .onConflict((oc) => oc.columns(["issuer", "subject"]).doNothing())
        .returning("id")
        .executeTakeFirst();
      return inserted !== undefined;
    },

    async remove(userId: string, identityId: string): Promise<boolean> {
      const result = await db.deleteFrom("identities").where("id", "=", identityId).where("user_id", "=", userId).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async startFlow(flow: AuthFlowsTable, now: number): Promise<void> {
      // Abandoned flows go when new ones start: nothing else needs to sweep them.
      await db.deleteFrom("auth_flows").where("expires_at", "<=", now).execute();
      await db.insertInto("auth_flows").values(flow).execute();
    },

    /** The flow, removed in the same statement: of two callbacks racing for it, one gets it. Undefined once expired. */
    async consumeFlow(id: string, now: number): Promise<AuthFlowsTable | undefined> {
      const flow = await db.deleteFrom("auth_flows").where("id", "=", id).returningAll().executeTakeFirst();
      return flow && flow.expires_at > now ? flow : undefined;
    },
  };
}

export type IdentitiesRepository = ReturnType<typeof createIdentitiesRepository>;

/** Account deletion (`flows/account-deletion.ts`): the account's linked identities and the flows linking one. */
export async function eraseIdentitiesOfAccount(db: Db, userId: string): Promise<void> {
  await db.deleteFrom("identities").where("user_id", "=", userId).execute();
  await db.deleteFrom("auth_flows").where("link_user_id", "=", userId).execute();
}
