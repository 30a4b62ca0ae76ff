/**
 * Verification of an account's address (issue 26): a link to it at registration, on "Resend" and after every change
 * of the address; single use, 24 hours. An unverified account works as any other; the app shows a banner.
 */
import { APP_ROUTES, VERIFY_EMAIL_TTL_MS, VERIFY_LINK_INVALID_MESSAGE } from "@daysync/shared";
import type { Clock } from "../../clock.ts";
import type { UnitOfWork } from "../../feed/unit-of-work.ts";
import { AppError, accountDisabled, tooManyRequests } from "../../http/errors.ts";
import type { UsersRepository } from "../accounts/index.ts";
import { NO_PASSWORD, recordUserUpdated } from "../accounts/index.ts";
import type { DevicesService } from "../devices/index.ts";
import type { EmailRepository, Recipient } from "./email.repository.ts";
import type { MailOutbox, SendOutcome } from "./mail-outbox.ts";
import { verificationMail } from "./mail-templates.ts";

const invalidLink = () => new AppError(400, "verify_link_invalid", VERIFY_LINK_INVALID_MESSAGE);

export function createEmailVerificationService(deps: {
  /** Undefined: this server sends no mail, and `send` does nothing. */
  outbox: MailOutbox | undefined;
  email: EmailRepository;
  users: UsersRepository;
  unitOfWork: UnitOfWork;
  clock: Clock;
  /** PUBLIC_URL: links in mails start with it. */
  siteUrl: string;
  /** Mails of one kind per account and window (for Resend's 429). */
  accountWindowMs: number;
  /** Ends the sessions of an account whose address is first verified through a link (issue 42). */
  devices: Pick<DevicesService, "signOutOthers" | "endAllSessions">;
}) {
  const { outbox, email, users, unitOfWork, clock, siteUrl } = deps;

  async function issue(to: Recipient): Promise<SendOutcome | "skipped"> {
    if (!outbox || to.disabled_at !== null || to.email_verified_at !== null) return "skipped";
    return outbox.sendTo(to, "verify_email", async () => {
      const token = await email.issueToken(to, "verify_email", clock.now(), VERIFY_EMAIL_TTL_MS);
      return verificationMail({ name: to.name, url: `${siteUrl}${APP_ROUTES.verifyEmail}#${token}`, siteUrl });
    });
  }

  /**
   * Verifies the address a mailed link went to, if the account still has it (false otherwise). The first verification
   * shows who reads mail there owns the account (issue 42: someone may have registered the address first), so a
   * password set before it is cleared and every other session ends. `keep`: the session of this very account that
   * opened the link; it and the password stay (its person knew the password and reads the mail).
   */
  async function claimByLink(userId: string, address: string, keep?: string): Promise<boolean> {
    const first = await unitOfWork.forUser(userId, async (work) => {
      const owner = await email.in(work.trx).recipient(userId);
      if (!owner || owner.email !== address) return undefined;
      if (owner.email_verified_at !== null) return false;
      const now = clock.now();
      if (!(await users.in(work.trx).markEmailVerified(userId, address, now))) return undefined;
      if (!keep) await users.in(work.trx).setPasswordHash(userId, NO_PASSWORD, now);
      await recordUserUpdated(work, users, userId);
      return true;
    });
    if (first === undefined) return false;
    if (first) await (keep ? deps.devices.signOutOthers(userId, keep) : deps.devices.endAllSessions(userId));
    return true;
  }

  /**
   * Sends the account's current address a verification link, unless this server sends no mail, the address is
   * verified already, the account is disabled, or it had its share of these mails within the window. An email
   * change stores the new address with `email_verified_at` null, then calls this. Resolves once sent (or not).
   */
  async function send(userId: string): Promise<SendOutcome | "skipped"> {
    const to = await email.recipient(userId);
    return to ? issue(to) : "skipped";
  }

  return {
    send,

    /** The same, after the current request has been answered (registration does not wait for SMTP). */
    sendLater(userId: string): void {
      outbox?.later("verification mail", () => send(userId));
    },

    /** "Resend" on the banner, by the signed-in person: 429 once the account had its share. */
    async resend(userId: string): Promise<void> {
      if ((await send(userId)) === "limited") throw tooManyRequests(Math.ceil(deps.accountWindowMs / 1000), "emails");
    },

    /**
     * Uses a verification link: the address it was sent to is verified, if the account still has it. `asker`: the
     * device that opened it, when signed in (kept, with the password, if it is of this account).
     */
    async verify(token: string, asker?: { userId: string; sessionId: string }): Promise<{ email: string }> {
      const link = await email.consumeToken(token, "verify_email", clock.now());
      if (!link) throw invalidLink();
      const owner = await email.recipient(link.user_id);
      if (owner?.disabled_at != null) throw accountDisabled();
      const keep = asker?.userId === link.user_id ? asker.sessionId : undefined;
      if (!(await claimByLink(link.user_id, link.email, keep))) throw invalidLink();
      return { email: link.email };
    },

    claimByLink,
  };
}

export type EmailVerificationService = ReturnType<typeof createEmailVerificationService>;
