/** User accounts: the email is unique and stored lowercased; the plan fields come from the current subscription. */
import type { Transaction } from "kysely";
import type { Db } from "../../db/database.ts";
import { FIRST_ADMIN_CLAIM } from "../../db/migrations.ts";
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
    /** Renames the user, and their personal space's one member with them (decision 016); the name of a discussion member is its own. */
    async setName(userId: string, name: string, now: number): Promise<void> {
      await db.updateTable("users").set({ name, updated_at: now }).where("id", "=", userId).execute();
      await db.updateTable("space_members").set({ display_name: name }).where("id", "=", userId).where("space_id", "=", userId).execute();
    },
    /** A new address is not verified yet: a verification link sent to the old one stops working with it. */
    async setEmail(userId: string, email: string, now: number): Promise<void> {
      await db.updateTable("users").set({ email, email_verified_at: null, updated_at: now }).where("id", "=", userId).execute();
    },
    async adminCount(): Promise<number> {
      const row = await db
        .selectFrom("users")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("role", "=", "admin")
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
    /**
     * Makes the user an admin if no account ever claimed that as the first of this installation (the migration
     * marks an installation that already had accounts as claimed). The claim's unique name decides a race.
     */
    async claimFirstAdmin(userId: string, now: number): Promise<boolean> {
      const claimed = await db
        .insertInto("server_keys")
        .values({ name: FIRST_ADMIN_CLAIM, value: "{}", created_at: now })
        .onConflict((oc) => oc.column("name").doNothing())
        .returning("name")
        .executeTakeFirst();
      if (!claimed) return false;
      await db.updateTable("users").set({ role: "admin" }).where("id", "=", userId).execute();
      return true;
    },

    async passwordHashOf(userId: string): Promise<string | undefined> {
      const row = await db.selectFrom("users").select("password_hash").where("id", "=", userId).executeTakeFirst();
      return row?.password_hash;
    },

    /**
     * Stores the user and their personal space (decision 016: its id, and its one membership's, are the user's)
     * unless the email is taken; false then, with nothing written (the unique email decides a race).
     */
    async insertIfEmailFree(user: UsersTable): Promise<boolean> {
      const inserted = await db
        .insertInto("users")
        .values(user)
        .onConflict((oc) => oc.column("email").doNothing())
        .returning("id")
        .executeTakeFirst();
      if (!inserted) return false;
      const at = user.created_at;
      await db
        .insertInto("spaces")
        .values({
          id: user.id,
          kind: "personal",
          title: "",
          public_id: null,
          created_by: user.id,
          created_at: at,
          updated_at: at,
          ends_at: null,
        })
        .execute();
      await db
        .insertInto("space_members")
        .values({
          id: user.id,
          space_id: user.id,
          user_id: user.id,
          display_name: user.name,
          role: "owner",
          joined_at: at,
          last_read_at: 0,
          left_at: null,
          left_reason: null,
        })
        .execute();
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

/** Account deletion (`flows/account-deletion.ts`): the personal space, and any membership left of the account. */
export async function erasePersonalSpaceOfAccount(db: Db, userId: string): Promise<void> {
  await db
    .deleteFrom("space_members")
    .where((eb) => eb.or([eb("user_id", "=", userId), eb("space_id", "=", userId)]))
    .execute();
  await db.deleteFrom("spaces").where("id", "=", userId).execute();
}

/** Account deletion (`flows/account-deletion.ts`): the user row itself, once nothing refers to it. */
export async function eraseUserRow(db: Db, userId: string): Promise<void> {
  await db.deleteFrom("users").where("id", "=", userId).execute();
}
