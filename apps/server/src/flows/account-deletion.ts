/**
 * Deleting an account: everything of it goes at once, and nothing of it stays in any table or on disk. It spans the
 * modules, so it lives above them and asks each module to erase the rows it owns. Used by the admin page and by a
 * person's own "Delete account" (Settings).
 */
import { eraseChangesOfAccount } from "../feed/changes.repository.ts";
import type { UnitOfWork } from "../feed/unit-of-work.ts";
import { notFound } from "../http/errors.ts";
import { erasePasswordResetsOfAccount, eraseSessionsOfAccount, eraseUserRow, type UsersRepository } from "../modules/accounts/index.ts";
import { type Auditor, forgetAccountInAudit } from "../modules/admin/index.ts";
import type { DevicesService } from "../modules/devices/index.ts";
import type { DiscussionsService } from "../modules/discussions/index.ts";
import { eraseEmailOfAccount } from "../modules/email/index.ts";
import { eraseIdentitiesOfAccount } from "../modules/identities/index.ts";
import { eraseKeysOfAccount } from "../modules/keys/index.ts";
import { eraseMessagesOfAccount } from "../modules/messages/index.ts";
import { erasePairingsOfAccount } from "../modules/pairing/index.ts";
import { erasePaymentsOfAccount } from "../modules/payments/index.ts";
import { erasePlansOfAccount } from "../modules/plans/index.ts";
import { erasePushSubscriptionsOfAccount } from "../modules/push/index.ts";
import { erasePersonalSpaceOfAccount } from "../modules/spaces/index.ts";
import { eraseUploadsOfAccount, type UploadsService } from "../modules/uploads/index.ts";

export function createAccountDeletion(deps: {
  unitOfWork: UnitOfWork;
  users: Pick<UsersRepository, "standing" | "setDisabled" | "in">;
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
      // Then every row of it in one transaction, children first so foreign keys hold on both engines.
      const files = await deps.unitOfWork.forUser(userId, async ({ trx }) => {
        await erasePasswordResetsOfAccount(trx, userId);
        await eraseEmailOfAccount(trx, userId);
        await eraseIdentitiesOfAccount(trx, userId);
        await erasePaymentsOfAccount(trx, userId);
        await erasePushSubscriptionsOfAccount(trx, userId);
        await eraseKeysOfAccount(trx, userId);
        await eraseSessionsOfAccount(trx, userId);
        await erasePairingsOfAccount(trx, userId);
        const uploads = await eraseUploadsOfAccount(trx, userId);
        await eraseMessagesOfAccount(trx, userId);
        await erasePersonalSpaceOfAccount(trx, userId);
        await eraseChangesOfAccount(trx, userId);
        await deps.users.in(trx).setCurrentPlan(userId, "", deps.now());
        await erasePlansOfAccount(trx, userId);
        await forgetAccountInAudit(trx, userId);
        await eraseUserRow(trx, userId);
        return uploads;
      });
      for (const id of files) await deps.removeFile(id);
      await deps.uploads.removeUnfinishedBy(userId);
    },
  };
}

export type AccountDeletion = ReturnType<typeof createAccountDeletion>;
