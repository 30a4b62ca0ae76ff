/**
 * Reset links an admin hands over, the command line prints or "Forgot password?" mails: single use, valid 30 minutes;
 * every other device is signed out, and the route signs in the one that used it.
 */
import { createHash, randomBytes } from "node:crypto";
import { PASSWORD_RESET_TTL_MS, RESET_LINK_INVALID_MESSAGE, RESET_PASSWORD_ROUTE } from "@daysync/shared";
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/database.ts";
import { AppError, accountDisabled, notFound } from "../../http/errors.ts";
import type { DevicesService } from "../devices/index.ts";
import { hashPassword } from "./password.ts";
import type { PasswordResetsRepository } from "./password-resets.repository.ts";
import type { UsersRepository } from "./users.repository.ts";

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/**
 * A new one-time link for the account, on the server at `baseUrl` (no trailing slash). `toAddress`: the address it is
 * mailed to, which the account must still have (a change of it meanwhile deleted the account's links, issue 42).
 */
export async function createResetLink(
  deps: { clock: Clock; users: Pick<UsersRepository, "standing">; resets: PasswordResetsRepository },
  userId: string,
  baseUrl: string,
  toAddress?: string,
): Promise<{ url: string; expires_at: number }> {
  const standing = await deps.users.standing(userId);
  if (!standing || (toAddress !== undefined && standing.email !== toAddress)) throw notFound("account");
  const now = deps.clock.now();
  await deps.resets.removeExpired(now);
  const token = randomBytes(32).toString("base64url");
  const expiresAt = now + PASSWORD_RESET_TTL_MS;
  await deps.resets.insert({ token_hash: hashToken(token), user_id: userId, created_at: now, expires_at: expiresAt });
  return { url: `${baseUrl}${RESET_PASSWORD_ROUTE}#${token}`, expires_at: expiresAt };
}

export function createPasswordResetService(deps: {
  db: Db;
  clock: Clock;
  users: UsersRepository;
  resets: PasswordResetsRepository;
  devices: Pick<DevicesService, "endAllSessions">;
}) {
  const { db, clock, users, resets } = deps;
  return {
    createLink: (userId: string, baseUrl: string) => createResetLink({ clock, users, resets }, userId, baseUrl),

    /**
     * Sets the new password with a link's token, then signs out every device of the account; the account's id, for
     * the route to sign in the device that used the link. A disabled account's link does not work (and stays unused).
     */
    async reset(token: string, password: string): Promise<string> {
      const passwordHash = await hashPassword(password);
      const now = clock.now();
      const userId = await db.transaction().execute(async (trx) => {
        const owner = await resets.in(trx).consume(hashToken(token), now);
        if (!owner) return undefined;
        if ((await users.in(trx).standing(owner))?.disabled_at != null) throw accountDisabled();
        await users.in(trx).setPasswordHash(owner, passwordHash, now);
        return owner;
      });
      if (!userId) throw new AppError(400, "reset_link_invalid", RESET_LINK_INVALID_MESSAGE);
      await deps.devices.endAllSessions(userId);
      return userId;
    },
  };
}

export type PasswordResetService = ReturnType<typeof createPasswordResetService>;
