/** Registration, sign-in and sign-out. */
import { randomUUID } from "node:crypto";
import { FREE_TYPE_ID, type LoginInput, type RegisterInput, type User } from "@daysync/shared";
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/database.ts";
import { conflict, invalidCredentials, notFound } from "../../http/errors.ts";
import { startSubscription } from "../plans/plans.service.ts";
import { hashPassword, verifyAgainstDummy, verifyPassword } from "./password.ts";
import type { SessionsRepository } from "./sessions.repository.ts";
import { loadUser } from "./user.presenter.ts";

const emailTaken = () => conflict("email_taken", "An account with this email already exists.");

export interface DeviceInfo {
  userAgent: string;
  ip: string;
}

export function createAccountsService(deps: { db: Db; clock: Clock; sessions: SessionsRepository }) {
  const { db, clock, sessions } = deps;

  async function signedIn(userId: string, device: DeviceInfo) {
    const session = await sessions.create(userId, device, clock.now());
    const user = await loadUser(db, userId);
    if (!user) throw notFound("user");
    return { user, session };
  }

  return {
    /** Creates the account, its Free subscription and its user record, then signs this device in. */
    async register(input: RegisterInput, device: DeviceInfo): Promise<{ user: User; session: { id: string; token: string } }> {
      const email = input.email.toLowerCase();
      const existing = await db.selectFrom("users").select("id").where("email", "=", email).executeTakeFirst();
      if (existing) throw emailTaken();
      const passwordHash = await hashPassword(input.password);
      const now = clock.now();
      const userId = randomUUID();
      await db.transaction().execute(async (trx) => {
        // The unique email decides a race between two sign-ups: the loser inserts nothing and gets 409.
        const inserted = await trx
          .insertInto("users")
          .values({
            id: userId,
            name: input.name,
            email,
            password_hash: passwordHash,
            actual_subscription_id: "",
            seq: 0,
            created_at: now,
            updated_at: now,
          })
          .onConflict((oc) => oc.column("email").doNothing())
          .returning("id")
          .executeTakeFirst();
        if (!inserted) throw emailTaken();
        await startSubscription(trx, userId, FREE_TYPE_ID, now);
      });
      return signedIn(userId, device);
    },

    async login(input: LoginInput, device: DeviceInfo) {
      const row = await db
        .selectFrom("users")
        .select(["id", "password_hash"])
        .where("email", "=", input.email.toLowerCase())
        .executeTakeFirst();
      const ok = row ? await verifyPassword(row.password_hash, input.password) : await verifyAgainstDummy(input.password);
      if (!row || !ok) throw invalidCredentials();
      return signedIn(row.id, device);
    },

    async me(userId: string): Promise<User> {
      const user = await loadUser(db, userId);
      if (!user) throw notFound("user");
      return user;
    },
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
