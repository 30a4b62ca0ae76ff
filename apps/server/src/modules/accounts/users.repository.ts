/** User accounts: the email is unique and stored lowercased; the plan fields come from the current subscription. */
import type { Transaction } from "kysely";
import type { Db } from "../../db/database.ts";
import type { Database, UsersTable } from "../../db/schema.ts";
import type { UserWithPlan } from "../../presenters/user.presenter.ts";
import { usersWithCurrentPlan } from "../plans/index.ts";

export type { UserWithPlan };

/** Over the database, or over a transaction (`.in(trx)`) for work that must commit together. */
export function createUsersRepository(db: Db) {
  return {
    in: (trx: Transaction<Database>) => createUsersRepository(trx),

    async idByEmail(email: string): Promise<string | undefined> {
      const row = await db.selectFrom("users").select("id").where("email", "=", email).executeTakeFirst();
      return row?.id;
    },

    /** The account that has this address, and whether it was ever confirmed there; undefined when none has it. */
    holderOf(email: string): Promise<{ id: string; email_verified_at: number | null } | undefined> {
      return db.selectFrom("users").select(["id", "email_verified_at"]).where("email", "=", email).executeTakeFirst();
    },

    credentialsByEmail(email: string): Promise<{ id: string; password_hash: string; disabled_at: number | null } | undefined> {
      return db.selectFrom("users").select(["id", "password_hash", "disabled_at"]).where("email", "=", email).executeTakeFirst();
    },
    /** Who the user is to the admin pages: role, whether disabled, email; undefined for no such user. */
    standing(userId: string): Promise<Pick<UsersTable, "id" | "email" | "role" | "disabled_at"> | undefined> {
      return db.selectFrom("users").select(["id", "email", "role", "disabled_at"]).where("id", "=", userId).executeTakeFirst();
    },
    async setRole(userId: string, role: UsersTable["role"], now: number): Promise<void> {
      await db.updateTable("users").set({ role, updated_at: now }).where("id", "=", userId).execute();
    },
    async setDisabled(userId: string, disabledAt: number | null, now: number): Promise<void> {
      await db.updateTable("users").set({ disabled_at: disabledAt, updated_at: now }).where("id", "=", userId).execute();
    },
    async setPasswordHash(userId: string, passwordHash: string, now: number): Promise<void> {
      await db.updateTable("users").set({ password_hash: passwordHash, updated_at: now }).where("id", "=", userId).execute();
    },
    async setName(userId: string, name: string, now: number): Promise<void> {
      await db.updateTable("users").set({ name, updated_at: now }).where("id", "=", userId).execute();
    },
    /** A new address is not verified yet: a verification link sent to the old one stops working with it. */
    async setEmail(userId: string, email: string, now: number): Promise<void> {
      await db.updateTable("users").set({ email, email_verified_at: null, updated_at: now }).where("id", "=", userId).execute();
    },
    /** Marks the address verified if the account still has it; false when it changed since the link was sent. */
    async markEmailVerified(userId: string, email: string, now: number): Promise<boolean> {
      const result = await db
        .updateTable("users")
        .set({ email_verified_at: now, updated_at: now })
        .where("id", "=", userId)
        .where("email", "=", email)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    /** Makes the subscription the user's current plan (plans makes the row); "" leaves them on none. */
    async setCurrentPlan(userId: string, subscriptionId: string, now: number): Promise<void> {
      await db.updateTable("users").set({ actual_subscription_id: subscriptionId, updated_at: now }).where("id", "=", userId).execute();
    },
    async adminCount(): Promise<number> {
      const row = await db
        .selectFrom("users")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("role", "=", "admin")
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
    async passwordHashOf(userId: string): Promise<string | undefined> {
      const row = await db.selectFrom("users").select("password_hash").where("id", "=", userId).executeTakeFirst();
      return row?.password_hash;
    },

    /** Stores the user unless the email is taken; false then, with nothing written (the unique email decides a race). */
    async insertIfEmailFree(user: UsersTable): Promise<boolean> {
      const inserted = await db
        .insertInto("users")
        .values(user)
        .onConflict((oc) => oc.column("email").doNothing())
        .returning("id")
        .executeTakeFirst();
      if (!inserted) return false;
      return true;
    },

    /** The user with their current subscription, or undefined. */
    async findWithPlan(userId: string): Promise<UserWithPlan | undefined> {
      const row = await usersWithCurrentPlan(db)
        .selectAll("subscriptions")
        .select([
          "users.id as uid",
          "users.name",
          "users.email",
          "users.actual_subscription_id",
          "users.created_at as user_created_at",
          "users.role",
          "users.email_verified_at",
        ])
        .where("users.id", "=", userId)
        .executeTakeFirst();
      if (!row) return undefined;
      const { uid, name, email, actual_subscription_id, user_created_at, role, email_verified_at, ...plan } = row;
      return { id: uid, name, email, actual_subscription_id, created_at: user_created_at, role, email_verified_at, plan };
    },
  };
}

export type UsersRepository = ReturnType<typeof createUsersRepository>;

/** Account deletion (`flows/account-deletion.ts`): the user row itself, once nothing refers to it. */
export async function eraseUserRow(db: Db, userId: string): Promise<void> {
  await db.deleteFrom("users").where("id", "=", userId).execute();
}
