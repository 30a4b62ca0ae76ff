import type { FastifyBaseLogger } from "fastify";
import type { Mailer } from "../../adapters/mailer.ts";
import type { Clock } from "../../clock.ts";
import type { RateLimit } from "../../config/config.ts";
import type { UnitOfWork } from "../../feed/unit-of-work.ts";
import type { EmailRepository, Recipient } from "./email.repository.ts";
import type { MailContent } from "./mail-templates.ts";

export type SendOutcome = "sent" | "limited";

export function createMailOutbox(deps: {
  mailer: Mailer;
  email: EmailRepository;
  /** Holds the account's row while its mails are counted. */
  unitOfWork: UnitOfWork;
  clock: Clock;
  accountLimit: RateLimit;
  log: FastifyBaseLogger;
}) {
  const { mailer, email, clock, accountLimit, log } = deps;
  const pending = new Set<Promise<void>>();
  return {
    /** Runs `task` once the current request has been answered; a failure is logged. */
    later(what: string, task: () => Promise<unknown>): void {
      const run: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
        .then(task)
        .then(
          () => undefined,
          (err: unknown) => log.error({ err }, `${what}: the mail was not sent`),
        )
        .finally(() => pending.delete(run));
      pending.add(run);
    },

    /** Sends what `content` makes to the account, unless it already had its share of `kind` within the window. */
    async sendTo(to: Recipient, kind: string, content: () => Promise<MailContent>): Promise<SendOutcome> {
      const count = await deps.unitOfWork.forUser(to.id, (work) =>
        email.in(work.trx).countSend(to.id, kind, clock.now(), accountLimit.windowMs),
      );
      if (count > accountLimit.max) return "limited";
      await mailer.send({ to: to.email, ...(await content()) });
      return "sent";
    },

    /** Resolves when every mail started so far is sent or given up (the server waits for them when it stops). */
    async settled(): Promise<void> {
      while (pending.size > 0) await Promise.all(pending);
    },
  };
}

export type MailOutbox = ReturnType<typeof createMailOutbox>;
