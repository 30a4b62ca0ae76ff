/**
 * The fresh check, before what could hurt the account if a signed-in device were left unattended (Settings, linking
 * a provider): the current password, or, for an account made through a provider (no password), a new sign-in there
 * within `FRESH_CHECK_MS` on this very device (`sessions.reauthenticated_at`, set by the identities' confirm flow).
 */
import { FRESH_CHECK_MS, SETTINGS_TEXT } from "@daysync/shared";
import type { Clock } from "../../clock.ts";
import { AppError, badRequest } from "../../http/errors.ts";
import type { AccountsService } from "./accounts.service.ts";
import type { SessionsRepository } from "./sessions.repository.ts";

/** Who asks: the user and the device (session) they ask from. */
export interface Asker {
  userId: string;
  sessionId: string;
}

const wrongPassword = (field: string) => new AppError(403, "wrong_password", SETTINGS_TEXT.wrongPassword, field);
const freshCheckNeeded = () => new AppError(403, "fresh_check_required", SETTINGS_TEXT.freshCheckNeeded);

export function createFreshCheck(deps: {
  clock: Clock;
  sessions: Pick<SessionsRepository, "reauthenticatedAt">;
  accounts: Pick<AccountsService, "checkPassword" | "hasPassword">;
}) {
  const { clock, sessions, accounts } = deps;

  async function freshUntil(sessionId: string): Promise<number | null> {
    const at = await sessions.reauthenticatedAt(sessionId);
    return at === null ? null : at + FRESH_CHECK_MS;
  }

  /**
   * The fresh check: an account with a password needs it typed (`field` names its input), unless `providerCounts`
   * and this device passed a provider check within FRESH_CHECK_MS; an account without one needs that check.
   */
  async function confirm(asker: Asker, password: string | undefined, field: string, providerCounts: boolean): Promise<void> {
    if (await accounts.hasPassword(asker.userId)) {
      if (password) {
        if (!(await accounts.checkPassword(asker.userId, password))) throw wrongPassword(field);
        return;
      }
      if (providerCounts && ((await freshUntil(asker.sessionId)) ?? 0) > clock.now()) return;
      throw badRequest("Enter your current password.", field);
    }
    if (((await freshUntil(asker.sessionId)) ?? 0) <= clock.now()) throw freshCheckNeeded();
  }

  return { freshUntil, confirm };
}

export type FreshCheck = ReturnType<typeof createFreshCheck>;
