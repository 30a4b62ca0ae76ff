/** Registration, sign-in and sign-out. */
import { randomUUID } from "node:crypto";
import { FREE_TYPE_ID, type LoginInput, type RegisterInput, type User } from "@daysync/shared";
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/database.ts";
import { accountDisabled, conflict, invalidCredentials, notFound } from "../../http/errors.ts";
import type { PlansRepository } from "../plans/plans.repository.ts";
import { loadUser } from "./load-user.ts";
import { hashPassword, verifyAgainstDummy, verifyPassword } from "./password.ts";
import type { SessionsRepository } from "./sessions.repository.ts";
import type { UsersRepository } from "./users.repository.ts";

const emailTaken = () => conflict("email_taken", "An account with this email already exists.");

export interface DeviceInfo {
  userAgent: string;
  ip: string;
}

export function createAccountsService(deps: {
  db: Db;
  clock: Clock;
  sessions: SessionsRepository;
  users: UsersRepository;
  plans: PlansRepository;
}) {
  const { db, clock, sessions, users, plans } = deps;

  async function signedIn(userId: string, device: DeviceInfo) {
    const session = await sessions.create(userId, device, clock.now());
    const user = await loadUser(users, userId);
    if (!user) throw notFound("user");
    return { user, session };
  }

  return {
    /** Creates the account, its Free subscription and its user record, then signs this device in. */
    async register(input: RegisterInput, device: DeviceInfo): Promise<{ user: User; session: { id: string; token: string } }> {
      const email = input.email.toLowerCase();
      if (await users.idByEmail(email)) throw emailTaken();
      const passwordHash = await hashPassword(input.password);
      const now = clock.now();
      const userId = randomUUID();
      await db.transaction().execute(async (trx) => {
        // The unique email decides a race between two sign-ups: the loser inserts nothing and gets 409.
        const inserted = await users.in(trx).insertIfEmailFree({
          id: userId,
          name: input.name,
          email,
          password_hash: passwordHash,
          actual_subscription_id: "",
          seq: 0,
          created_at: now,
          updated_at: now,
          role: "user",
          disabled_at: null,
        });
        if (!inserted) throw emailTaken();
        await plans.in(trx).startSubscription(userId, FREE_TYPE_ID, now);
        // The first account of a new installation runs it.
        await users.in(trx).claimFirstAdmin(userId, now);
      });
      return signedIn(userId, device);
    },

    async login(input: LoginInput, device: DeviceInfo) {
      const row = await users.credentialsByEmail(input.email.toLowerCase());
      const ok = row ? await verifyPassword(row.password_hash, input.password) : await verifyAgainstDummy(input.password);
      if (!row || !ok) throw invalidCredentials();
      // Said only to whoever knows the password: it tells nothing about the account to anyone else.
      if (row.disabled_at !== null) throw accountDisabled();
      return signedIn(row.id, device);
    },

    async me(userId: string): Promise<User> {
      const user = await loadUser(users, userId);
      if (!user) throw notFound("user");
      return user;
    },
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
