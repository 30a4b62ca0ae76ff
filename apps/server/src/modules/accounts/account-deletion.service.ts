/**
 * Deleting an account: everything of it goes at once, and nothing of it stays in any table or on disk. Used by the
 * admin page; a person's own "Delete account" is meant to call the same `deleteAccount`.
 */
import type { UnitOfWork } from "../../feed/unit-of-work.ts";
import { notFound } from "../../http/errors.ts";
import type { Auditor } from "../admin/admin-audit.ts";
import type { DevicesService } from "../devices/devices.service.ts";
import type { DiscussionsService } from "../discussions/discussions.service.ts";
import type { UploadsService } from "../uploads/uploads.service.ts";
import type { AccountDeletionRepository } from "./account-deletion.repository.ts";
import type { UsersRepository } from "./users.repository.ts";

export function createAccountDeletionService(deps: {
  unitOfWork: UnitOfWork;
  users: Pick<UsersRepository, "standing" | "setDisabled">;
  accountDeletion: AccountDeletionRepository;
  devices: Pick<DevicesService, "endAllSessions">;
  discussions: Pick<DiscussionsService, "forgetAccount">;
  uploads: Pick<UploadsService, "removeUnfinishedBy">;
  removeFile: (uploadId: string) => Promise<void>;
  now: () => number;
  /** Ends the account's subscriptions at the payment provider; when it fails, nothing is deleted. */
  cancelPayments?: (userId: string) => Promise<void>;
  /** The admin audit, where an admin's deletion of their own account is written. */
  audit: Auditor;
}) {
  return {
    /** `byOwner`: the person deletes their own account (Settings); an admin's other deletions are audited by the admin page. */
    async deleteAccount(userId: string, options: { byOwner?: boolean } = {}): Promise<void> {
      const standing = await deps.users.standing(userId);
      if (!standing) throw notFound("account");
      await deps.cancelPayments?.(userId);
      // An admin leaving is an admin action: logged under their own name, before the erasure marks it deleted (issue 42).
      if (options.byOwner && standing.role === "admin") {
        await deps.audit({ userId }, "account.deleted", { id: userId, email: standing.email }, "their own account, from Settings");
      }
      // First nobody can act as the account any more: no sign-in, and every device signed out live.
      await deps.users.setDisabled(userId, deps.now(), deps.now());
      await deps.devices.endAllSessions(userId);
      await deps.discussions.forgetAccount(userId);
      const files = await deps.unitOfWork.forUser(userId, async (work) => deps.accountDeletion.in(work.trx).erase(userId));
      for (const id of files) await deps.removeFile(id);
      await deps.uploads.removeUnfinishedBy(userId);
    },
  };
}

export type AccountDeletionService = ReturnType<typeof createAccountDeletionService>;
