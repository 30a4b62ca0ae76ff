/** A Daysync server that mails through a real SMTP mailbox started for the test, and Chromium. */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { freePort } from "../../apps/server/src/testing/free-port.ts";
import { type SmtpMailbox, startSmtpMailbox } from "../../apps/server/src/testing/smtp-mailbox.ts";
import { launchBrowser } from "./browser.ts";
import { type RunningServer, startServer } from "./server.ts";

export interface MailApp {
  mailbox: SmtpMailbox;
  server: RunningServer;
  browser: Browser;
}

/** Call at the top of a file; the fields are set once its tests start. */
export function useMailApp(): MailApp {
  const app = {} as MailApp;
  beforeAll(async () => {
    app.mailbox = await startSmtpMailbox();
    const port = await freePort();
    [app.server, app.browser] = await Promise.all([
      startServer({
        PORT: String(port),
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        SMTP_URL: app.mailbox.url,
        // The test mailbox offers no STARTTLS.
        SMTP_ALLOW_PLAINTEXT: "true",
        MAIL_FROM: "Daysync <noreply@daysync.test>",
      }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    await app.browser?.close();
    await app.server?.stop();
    await app.mailbox?.stop();
  });
  return app;
}
