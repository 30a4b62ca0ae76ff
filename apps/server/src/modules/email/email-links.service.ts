/**
 * "Forgot password?" and "Email me a sign-in link" (issue 26). Asked for by anyone with an address: the answer never
 * says whether an account has it, and the work (lookup, link, mail) happens after the answer. Disabled accounts get
 * no mail, and their links do not work.
 */
import { APP_ROUTES, SIGN_IN_LINK_INVALID_MESSAGE, SIGN_IN_LINK_TTL_MS } from "@daysync/shared";
import type { Clock } from "../../clock.ts";
import { AppError, accountDisabled } from "../../http/errors.ts";
import type { PasswordResetsRepository, UsersRepository } from "../accounts/index.ts";
import { createResetLink } from "../accounts/index.ts";
import type { EmailRepository, Recipient } from "./email.repository.ts";
import type { EmailVerificationService } from "./email-verification.service.ts";
import type { MailOutbox } from "./mail-outbox.ts";
import { passwordResetMail, signInLinkMail } from "./mail-templates.ts";

export function createEmailLinksService(deps: {
  outbox: MailOutbox;
  email: EmailRepository;
  users: UsersRepository;
  resets: PasswordResetsRepository;
  verification: Pick<EmailVerificationService, "claimByLink">;
  clock: Clock;
  /** PUBLIC_URL: links in mails start with it, never with the address a request names. */
  siteUrl: string;
}) {
  const { outbox, email, users, resets, clock, siteUrl } = deps;

  /** After the answer: the account with this address, unless there is none or it is disabled, gets `mail`. */
  function mailTheAccount(address: string, kind: string, mail: (to: Recipient) => Promise<ReturnType<typeof signInLinkMail>>) {
    outbox.later(`${kind} mail`, async () => {
      const to = await email.recipientByEmail(address.trim().toLowerCase());
      if (!to || to.disabled_at !== null) return;
      await outbox.sendTo(to, kind, () => mail(to));
    });
  }

  return {
    /** A one-time link to set a new password (30 minutes; the reset links an admin hands over). */
    requestPasswordReset(address: string): void {
      mailTheAccount(address, "password_reset", async (to) => {
        const { url } = await createResetLink({ clock, users, resets }, to.id, siteUrl, to.email);
        return passwordResetMail({ name: to.name, url, siteUrl });
      });
    },

    /** A one-time link that signs in the device opening it (15 minutes). */
    requestSignInLink(address: string): void {
      mailTheAccount(address, "sign_in", async (to) => {
        const token = await email.issueToken(to, "sign_in", clock.now(), SIGN_IN_LINK_TTL_MS);
        return signInLinkMail({ name: to.name, url: `${siteUrl}${APP_ROUTES.signInLink}#${token}`, siteUrl });
      });
    },

    /**
     * Uses a sign-in link: the account to sign this device in to. A link works only while the account has the address
     * it went to (issue 42). Opening it shows the person reads mail there, so an unverified address is verified on the
     * way, which ends every session made before and the password set before (`claimByLink`).
     */
    async useSignInLink(token: string): Promise<string> {
      const invalid = () => new AppError(400, "sign_in_link_invalid", SIGN_IN_LINK_INVALID_MESSAGE);
      const link = await email.consumeToken(token, "sign_in", clock.now());
      if (!link) throw invalid();
      const owner = await email.recipient(link.user_id);
      if (!owner || owner.email !== link.email) throw invalid();
      if (owner.disabled_at !== null) throw accountDisabled();
      if (owner.email_verified_at === null && !(await deps.verification.claimByLink(owner.id, owner.email))) throw invalid();
      return owner.id;
    },
  };
}

export type EmailLinksService = ReturnType<typeof createEmailLinksService>;
