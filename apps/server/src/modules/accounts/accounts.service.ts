/** Registration, sign-in and sign-out. */
import { randomUUID } from "node:crypto";
import { EMAIL_UNCONFIRMED_REGISTER_MESSAGE, FREE_TYPE_ID, type LoginInput, type RegisterInput, type User } from "@daysync/shared";
import type { Transaction } from "kysely";
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/database.ts";
import { FIRST_ADMIN_CLAIM } from "../../db/migrations.ts";
import type { Database } from "../../db/schema.ts";
import { accountDisabled, conflict, invalidCredentials, notFound } from "../../http/errors.ts";
import type { RegistrationService } from "../invites/index.ts";
import type { PlansRepository } from "../plans/index.ts";
import type { ServerKeysRepository } from "../server-keys/index.ts";
import type { SpacesRepository } from "../spaces/index.ts";
import { loadUser } from "./load-user.ts";
import { hashPassword, hasPassword, NO_PASSWORD, verifyAgainstDummy, verifyPassword } from "./password.ts";
import type { SessionsRepository } from "./sessions.repository.ts";
import type { UsersRepository } from "./users.repository.ts";

const emailTaken = () => conflict("email_taken", "An account with this email already exists.");
const emailUnconfirmed = () => conflict("email_unconfirmed", EMAIL_UNCONFIRMED_REGISTER_MESSAGE, "email");

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
  /** Where the installation's first admin is claimed. */
  serverKeys: ServerKeysRepository;
  /** Where the account's personal space is made with it (decision 016). */
  spaces: SpacesRepository;
  /** Who may make an account (REGISTRATION): asked before each new account, its invite used up with it. */
  registration: Pick<RegistrationService, "admit" | "consume">;
  /** Told of each account made with a password (the address's verification mail is sent then). */
  onRegistered?: (userId: string) => void;
  /**
   * This server sends mail: registering an address that an account has but never confirmed is answered with what to
   * do instead (a sign-in link or a reset makes the account the address owner's; issue 42).
   */
  sendsMail?: boolean;
}) {
  const { db, clock, sessions, users, plans } = deps;

  async function signedIn(userId: string, device: DeviceInfo) {
    const session = await sessions.create(userId, device, clock.now());
    const user = await loadUser(users, userId);
    if (!user) throw notFound("user");
    return { user, session };
  }

  /**
   * Stores the account, its Free subscription and its user record in one transaction, with `alongside` (an
   * identity) and the use of `invite` (what `registration.admit` answered) in it too; 409 when the email is taken.
   */
  async function createAccount(
    input: { name: string; email: string; passwordHash: string; emailVerified?: boolean },
    invite: string | undefined,
    alongside?: (trx: Transaction<Database>, userId: string) => Promise<void>,
  ): Promise<string> {
    const now = clock.now();
    const userId = randomUUID();
    await db.transaction().execute(async (trx) => {
      // The unique email decides a race between two sign-ups: the loser inserts nothing and gets 409.
      const inserted = await users.in(trx).insertIfEmailFree({
        id: userId,
        name: input.name,
        email: input.email,
        password_hash: input.passwordHash,
        actual_subscription_id: "",
        seq: 0,
        created_at: now,
        updated_at: now,
        role: "user",
        disabled_at: null,
        email_verified_at: input.emailVerified ? now : null,
      });
      if (!inserted) throw emailTaken();
      await deps.spaces.in(trx).insertPersonal({ id: userId, name: input.name }, now);
      if (invite) await deps.registration.consume(trx, userId, invite);
      await users.in(trx).setCurrentPlan(userId, await plans.in(trx).startSubscription(userId, FREE_TYPE_ID, now), now);
      // The first account of a new installation runs it. No account ever claimed that (the migration marks an
      // installation that already had accounts as claimed); the claim's unique name decides a race.
      if (await deps.serverKeys.in(trx).insertIfAbsent(FIRST_ADMIN_CLAIM, "{}", now)) await users.in(trx).setRole(userId, "admin", now);
      await alongside?.(trx, userId);
    });
    return userId;
  }

  return {
    /** Creates the account, its Free subscription and its user record, then signs this device in. */
    async register(
      input: RegisterInput,
      device: DeviceInfo,
      invite?: string,
    ): Promise<{ user: User; session: { id: string; token: string } }> {
      const toUse = await deps.registration.admit(invite);
      const email = input.email.toLowerCase();
      const holder = await users.holderOf(email);
      if (holder) throw holder.email_verified_at === null && deps.sendsMail ? emailUnconfirmed() : emailTaken();
      const passwordHash = await hashPassword(input.password);
      const userId = await createAccount({ name: input.name, email, passwordHash }, toUse);
      deps.onRegistered?.(userId);
      return signedIn(userId, device);
    },

    /** An account with no password, made through an identity provider that `link` stores in the same transaction. */
    async registerWithoutPassword(
      input: { name: string; email: string },
      link: (trx: Transaction<Database>, userId: string) => Promise<void>,
      device: DeviceInfo,
      invite?: string,
    ) {
      // The provider verified the address: sign-up through it requires that. The invite came with the flow.
      const toUse = await deps.registration.admit(invite);
      return signedIn(await createAccount({ ...input, passwordHash: NO_PASSWORD, emailVerified: true }, toUse, link), device);
    },

    /**
     * An account without a password (made through a provider) is refused as a wrong password is, in the same time:
     * a distinct answer would tell anyone who types an email that it has an account and how it signs in. The
     * command line words this refusal with the way out (`daysync login` by QR code); decision 019.
     */
    async login(input: LoginInput, device: DeviceInfo) {
      const row = await users.credentialsByEmail(input.email.toLowerCase());
      const usable = row && hasPassword(row.password_hash) ? row : undefined;
      const ok = usable ? await verifyPassword(usable.password_hash, input.password) : await verifyAgainstDummy(input.password);
      if (!usable || !ok) throw invalidCredentials();
      // Said only to whoever knows the password: it tells nothing about the account to anyone else.
      if (usable.disabled_at !== null) throw accountDisabled();
      return signedIn(usable.id, device);
    },

    /** Signs this device in to an account already found (a provider's returning identity). */
    signIn: signedIn,

    async isDisabled(userId: string): Promise<boolean> {
      return (await users.standing(userId))?.disabled_at != null;
    },

    /** A fresh check of the signed-in person's password; false also for an account without one. */
    async checkPassword(userId: string, password: string): Promise<boolean> {
      const hash = await users.passwordHashOf(userId);
      return hash && hasPassword(hash) ? verifyPassword(hash, password) : verifyAgainstDummy(password);
    },

    async hasPassword(userId: string): Promise<boolean> {
      const hash = await users.passwordHashOf(userId);
      return hash !== undefined && hasPassword(hash);
    },

    idByEmail: (email: string) => users.idByEmail(email.toLowerCase()),

    async me(userId: string): Promise<User> {
      const user = await loadUser(users, userId);
      if (!user) throw notFound("user");
      return user;
    },
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
