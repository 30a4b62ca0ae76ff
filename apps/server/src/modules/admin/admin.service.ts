/**
 * The admin page's actions and figures. Every action is for an admin's session only (`assertAdmin`, a 404 to anyone
 * else, as if there were no such page) and is written to the audit log.
 */
import { type AdminAccount, type AdminFigures, type AuditEntry, DAY_MS, endOfUtcDay, NO_END_DATE_MS } from "@daysync/shared";
import { may } from "../../access/policies.ts";
import type { Presence } from "../../adapters/presence.ts";
import type { Clock } from "../../clock.ts";
import { AppError, badRequest, conflict, notFound } from "../../http/errors.ts";
import type { FileStorage } from "../../storage/file-storage.ts";
import type { AccountDeleter, PasswordResetService, UsersRepository } from "../accounts/index.ts";
import type { DevicesService } from "../devices/index.ts";
import type { PlansService } from "../plans/index.ts";
import type { ActivityCounter } from "./activity-counter.ts";
import { HOUR_MS } from "./activity-counter.ts";
import type { AdminRepository } from "./admin.repository.ts";
import { type Actor, createAuditor } from "./admin-audit.ts";

/** Premium granted by an admin ends at most this far ahead. */
const GRANT_MAX_AHEAD_MS = 10 * 365 * DAY_MS;

/** The page and its routes do not exist for anyone but an admin. */
/** Printed at start while the installation has no admin. */
export const NO_ADMIN_NOTICE =
  "This server has no admin yet: the next account to register becomes it, or make one with `npm run admin -- role set EMAIL admin`.";

export const notAnAdmin = () => new AppError(404, "not_found", "No such page.");

export function createAdminService(deps: {
  clock: Clock;
  users: UsersRepository;
  admin: AdminRepository;
  plans: Pick<PlansService, "grantPremium" | "endPremium">;
  devices: Pick<DevicesService, "endAllSessions">;
  deletion: AccountDeleter;
  resets: Pick<PasswordResetService, "createLink">;
  presence: Pick<Presence, "liveCount">;
  storage: Pick<FileStorage, "volume">;
  activity: Pick<ActivityCounter, "flush">;
}) {
  const { clock, users, admin } = deps;
  const audit = createAuditor({ clock, users, admin });

  async function account(userId: string): Promise<AdminAccount> {
    const [row] = await admin.accounts("", userId);
    if (!row) throw notFound("account");
    return row;
  }

  async function targetOf(userId: string) {
    const target = await users.standing(userId);
    if (!target) throw notFound("account");
    return target;
  }

  /** Refuses what an admin may not do to their own account from the page: they would lock themselves out. */
  function notSelf(actor: Actor, targetId: string, what: string) {
    if (actor !== "command line" && !may(actor, "admin.change_account", { accountId: targetId }))
      throw conflict("own_account", `You cannot ${what} your own account here.`);
  }

  return {
    /** The signed-in user, if an admin whose account is enabled; a 404 for anyone else. */
    async assertAdmin(userId: string | undefined): Promise<{ userId: string }> {
      const who = userId ? await users.standing(userId) : undefined;
      const actorStanding = who && { role: who.role, disabled: who.disabled_at !== null };
      if (!who || !may({ userId: who.id }, "admin.act", { actorStanding })) throw notAnAdmin();
      return { userId: who.id };
    },

    accounts: (q: string) => admin.accounts(q),

    /** Premium until the end of the day `until` (UTC), or with no end date (`null`). */
    async grantPremium(actor: Actor, userId: string, until: string | null): Promise<AdminAccount> {
      const target = await targetOf(userId);
      const expiresAt = until === null ? NO_END_DATE_MS : endOfUtcDay(until);
      const now = clock.now();
      if (expiresAt <= now) throw badRequest("The end date must be in the future.", "until");
      if (until !== null && expiresAt > now + GRANT_MAX_AHEAD_MS) throw badRequest("The end date must be within 10 years.", "until");
      await deps.plans.grantPremium(userId, expiresAt);
      await audit(actor, "premium.granted", target, until === null ? "no end date" : `until ${until}`);
      return account(userId);
    },

    async endPremium(actor: Actor, userId: string): Promise<AdminAccount> {
      const target = await targetOf(userId);
      await deps.plans.endPremium(userId);
      await audit(actor, "premium.ended", target);
      return account(userId);
    },

    /** No sign-in for the account, and every device of it signed out at once (live connections closed). */
    async disable(actor: Actor, userId: string): Promise<AdminAccount> {
      notSelf(actor, userId, "disable");
      const target = await targetOf(userId);
      const now = clock.now();
      await users.setDisabled(userId, now, now);
      const ended = await deps.devices.endAllSessions(userId);
      await audit(actor, "account.disabled", target, `${ended} device${ended === 1 ? "" : "s"} signed out`);
      return account(userId);
    },

    async enable(actor: Actor, userId: string): Promise<AdminAccount> {
      const target = await targetOf(userId);
      await users.setDisabled(userId, null, clock.now());
      await audit(actor, "account.enabled", target);
      return account(userId);
    },

    async deleteAccount(actor: Actor, userId: string): Promise<void> {
      notSelf(actor, userId, "delete");
      const target = await targetOf(userId);
      // Written first: the deletion then erases the account from it, leaving "a deleted account".
      await audit(actor, "account.deleted", target);
      await deps.deletion.deleteAccount(userId);
    },

    async passwordResetLink(actor: Actor, userId: string, baseUrl: string): Promise<{ url: string; expires_at: number }> {
      const target = await targetOf(userId);
      const link = await deps.resets.createLink(userId, baseUrl);
      await audit(actor, "password_reset.link_created", target, "valid 30 minutes");
      return link;
    },

    hasAdmin: async () => (await users.adminCount()) > 0,

    async figures(): Promise<AdminFigures> {
      const now = clock.now();
      // This process's counts so far, so the figures include them.
      await deps.activity.flush();
      const currentHour = Math.floor(now / HOUR_MS) * HOUR_MS;
      const firstHour = currentHour - 23 * HOUR_MS;
      const [counts, live, volume, activity] = await Promise.all([
        admin.counts(now),
        deps.presence.liveCount(),
        deps.storage.volume(),
        admin.activitySince(firstHour),
      ]);
      const byHour = new Map(activity.map((a) => [a.hour, a]));
      const hours = Array.from({ length: 24 }, (_, i) => {
        const start = firstHour + i * HOUR_MS;
        const a = byHour.get(start);
        return { start, messages: a?.messages ?? 0, files: a?.files ?? 0 };
      });
      const last = hours[23] ?? { messages: 0, files: 0 };
      return {
        accounts: counts.accounts,
        devices_online: live.count,
        devices_online_scope: live.scope,
        messages_last_hour: last.messages,
        messages_last_day: hours.reduce((sum, h) => sum + h.messages, 0),
        files_last_hour: last.files,
        files_last_day: hours.reduce((sum, h) => sum + h.files, 0),
        storage_used: counts.storageUsed,
        volume_size: volume.size,
        volume_free: volume.free,
        open_discussions: counts.openDiscussions,
        hours,
      };
    },

    async auditLog(): Promise<AuditEntry[]> {
      return (await admin.auditLog()).map((e) => ({
        id: e.id,
        at: Number(e.at),
        actor: e.actor_label,
        action: e.action,
        target: e.target_label,
        detail: e.detail,
      }));
    },
  };
}

export type AdminService = ReturnType<typeof createAdminService>;
