/**
 * Mail (issue 26), only with SMTP_URL: the mailer and the outbox that sends after the answer, the email routes (which
 * say "not configured" without it), and the mail server reached once at start.
 */
import type { FastifyBaseLogger } from "fastify";
import { createSmtpMailer, smtpTransportNotice } from "../adapters/mailer.ts";
import type { Clock } from "../clock.ts";
import type { Config } from "../config/config.ts";
import type { UnitOfWork } from "../feed/unit-of-work.ts";
import type { ApiServer } from "../http/answers.ts";
import type { AccountsService } from "../modules/accounts/accounts.service.ts";
import type { DevicesService } from "../modules/devices/devices.service.ts";
import { emailRoutes } from "../modules/email/email.routes.ts";
import { createEmailLinksService } from "../modules/email/email-links.service.ts";
import type { EmailVerificationService } from "../modules/email/email-verification.service.ts";
import { createMailOutbox } from "../modules/email/mail-outbox.ts";
import type { Repositories } from "./repositories.ts";

/** The mailer and its outbox, both undefined without SMTP_URL. */
export function createMail(deps: {
  config: Pick<Config, "email">;
  repositories: Pick<Repositories, "email">;
  unitOfWork: UnitOfWork;
  clock: Clock;
  log: FastifyBaseLogger;
}) {
  const { email } = deps.config;
  const mailer = email.smtp ? createSmtpMailer(email.smtp, email.from) : undefined;
  const outbox = mailer
    ? createMailOutbox({
        mailer,
        email: deps.repositories.email,
        unitOfWork: deps.unitOfWork,
        clock: deps.clock,
        accountLimit: email.accountRateLimit,
        log: deps.log,
      })
    : undefined;
  return { mailer, outbox };
}

export type Mail = ReturnType<typeof createMail>;

/** Mounts the email routes, and with SMTP_URL checks the mail server once the server is ready. */
export function registerEmailRoutes(
  app: ApiServer,
  deps: {
    config: Pick<Config, "email" | "identity" | "cookieSecure" | "loginRateLimit">;
    mail: Mail;
    repositories: Pick<Repositories, "email" | "users" | "passwordResets">;
    clock: Clock;
    verification: EmailVerificationService;
    accounts: AccountsService;
    devices: DevicesService;
  },
) {
  const { config, mail, repositories } = deps;
  emailRoutes(app, {
    links:
      mail.outbox &&
      createEmailLinksService({
        outbox: mail.outbox,
        email: repositories.email,
        users: repositories.users,
        resets: repositories.passwordResets,
        verification: deps.verification,
        clock: deps.clock,
        siteUrl: config.identity.publicUrl,
      }),
    verification: deps.verification,
    accounts: deps.accounts,
    devices: deps.devices,
    cookieSecure: config.cookieSecure,
    addressRateLimit: config.email.addressRateLimit,
    useRateLimit: config.loginRateLimit,
  });
  const { mailer } = mail;
  if (mailer && config.email.smtp) {
    // The SMTP server is reached once at start, without holding the start up: a problem is logged, never fatal.
    const transport = smtpTransportNotice(config.email.smtp);
    app.addHook("onReady", async () => {
      app.log[transport.level](transport.msg);
      void mailer
        .check()
        .catch((err: unknown) => app.log.error({ err }, "SMTP_URL: the mail server cannot be used; mails fail until it can"));
    });
  }
}
