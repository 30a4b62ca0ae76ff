/**
 * The Settings page (issue 26): name, email, password, and deleting one's own account. What could hurt the
 * account if a signed-in device were left unattended asks for a fresh check: the current password, or, for an
 * account made through a provider (no password), a new sign-in there within `FRESH_CHECK_MS`
 * (`sessions.reauthenticated_at`, set by the identities service's confirm flow).
 */
import { type ChangeEmailInput, type ChangePasswordInput, type DeleteAccountInput, SETTINGS_TEXT, type User } from "@daysync/shared";
import type { Transaction } from "kysely";
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/database.ts";
import type { Database } from "../../db/schema.ts";
import type { UnitOfWork } from "../../feed/unit-of-work.ts";
import { badRequest, conflict, notFound } from "../../http/errors.ts";
import type { DevicesService } from "../devices/index.ts";
import type { SpacesRepository } from "../spaces/index.ts";
import type { AccountsService } from "./accounts.service.ts";
import type { Asker, FreshCheck } from "./fresh-check.ts";
import { recordUserUpdated } from "./load-user.ts";
import { hashPassword } from "./password.ts";
import { deleteResetLinksOf } from "./password-resets.repository.ts";
import type { UsersRepository } from "./users.repository.ts";

export type { Asker } from "./fresh-check.ts";

/** Deletes an account with everything of it: `flows/account-deletion.ts`, handed in by the composition root. */
export interface AccountDeleter {
  deleteAccount(userId: string, options?: { byOwner?: boolean }): Promise<void>;
}

export function createAccountSettingsService(deps: {
  clock: Clock;
  unitOfWork: UnitOfWork;
  users: UsersRepository;
  spaces: SpacesRepository;
  freshCheck: FreshCheck;
  accounts: Pick<AccountsService, "hasPassword" | "me">;
  devices: Pick<DevicesService, "signOutOthers" | "assertMaySignOut">;
  deletion: AccountDeleter;
  /** The email module's one-time links to the account, deleted in the transaction that changes its address. */
  deleteEmailLinksOf: (trx: Db, userId: string) => Promise<void>;
  /** Called after the email changed: the email module sends a verification to the new address when it can. */
  onEmailChanged?: (userId: string) => Promise<void>;
}) {
  const { clock, unitOfWork, users, accounts } = deps;
  const { confirm, freshUntil } = deps.freshCheck;

  /** Writes a change of the user's own record and tells every device of theirs (`user.updated`). */
  async function updateUser(
    userId: string,
    write: (repo: UsersRepository, now: number, trx: Transaction<Database>) => Promise<void>,
  ): Promise<User> {
    const user = await unitOfWork.forUser(userId, async (work) => {
      await write(users.in(work.trx), clock.now(), work.trx);
      return recordUserUpdated(work, users, userId);
    });
    if (!user) throw notFound("user");
    return user;
  }

  return {
    async confirmation(asker: Asker): Promise<{ has_password: boolean; confirmed_until: number | null }> {
      const until = await freshUntil(asker.sessionId);
      return {
        has_password: await accounts.hasPassword(asker.userId),
        confirmed_until: until !== null && until > clock.now() ? until : null,
      };
    },

    /** Renames the user, and their personal space's one member with them (decision 016). */
    changeName: (asker: Asker, name: string) =>
      updateUser(asker.userId, async (repo, now, trx) => {
        await repo.setName(asker.userId, name, now);
        await deps.spaces.in(trx).renamePersonalMember(asker.userId, name);
      }),

    /** Needs the current password (or, without one, a fresh provider check); 409 when another account has the email. */
    async changeEmail(asker: Asker, input: ChangeEmailInput): Promise<User> {
      const email = input.email.toLowerCase();
      await confirm(asker, input.password, "password", false);
      const current = await accounts.me(asker.userId);
      if (current.email === email) return current;
      const taken = () => conflict("email_taken", "Another account already uses this email. Choose a different one.", "email");
      if (await users.idByEmail(email)) throw taken();
      let user: User;
      try {
        // Links mailed to the old address die with it (issue 42): sign-in, verification and reset links.
        user = await updateUser(asker.userId, async (repo, now, trx) => {
          await repo.setEmail(asker.userId, email, now);
          await deps.deleteEmailLinksOf(trx, asker.userId);
          await deleteResetLinksOf(trx, asker.userId);
        });
      } catch (error) {
        // An account took the email between the check and the write: the unique index refused it.
        if ((await users.idByEmail(email)) !== asker.userId) throw taken();
        throw error;
      }
      await deps.onEmailChanged?.(asker.userId);
      return user;
    },

    /**
     * Changes the password (or gives an account made through a provider its first one, after a fresh provider
     * check); the account's other devices are signed out unless kept. Answers how many were. Signing them out
     * meets the Devices list's guard first (403 `key_holder_needed`, nothing changed): a device that holds no key
     * must not end the last ones that do and then Start over (issue 42).
     */
    async changePassword(asker: Asker, input: ChangePasswordInput): Promise<number> {
      await confirm(asker, input.current_password, "current_password", false);
      if (!input.keep_other_devices) await deps.devices.assertMaySignOut(asker.userId, asker.sessionId, "others");
      const passwordHash = await hashPassword(input.password);
      // A reset link made under the old password dies with it (issue 42).
      await unitOfWork.forUser(asker.userId, async (work) => {
        await users.in(work.trx).setPasswordHash(asker.userId, passwordHash, clock.now());
        await deleteResetLinksOf(work.trx, asker.userId);
      });
      if (input.keep_other_devices) return 0;
      return deps.devices.signOutOthers(asker.userId, asker.sessionId);
    },

    /**
     * After a fresh check (the password, or a provider sign-in) and the account's email typed exactly, deletes
     * the account and everything of it (`flows/account-deletion.ts`); every device, this one too, is signed out.
     */
    async deleteAccount(asker: Asker, input: DeleteAccountInput): Promise<void> {
      await confirm(asker, input.password, "password", true);
      const { email } = await accounts.me(asker.userId);
      if (input.email.trim().toLowerCase() !== email) throw badRequest(SETTINGS_TEXT.deleteEmailMismatch, "email");
      await deps.deletion.deleteAccount(asker.userId, { byOwner: true });
    },
  };
}

export type AccountSettingsService = ReturnType<typeof createAccountSettingsService>;
