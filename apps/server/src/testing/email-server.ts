/**
 * The server of the email tests (modules/email): a real SMTP mailbox (smtp-mailbox.ts) and a Daysync server mailing
 * through it, its first account an admin's. Each test file calls useEmailServer() once; the bindings below are set
 * before its tests run.
 */
import { afterAll, beforeAll } from "vitest";
import { type ReceivedMail, type SmtpMailbox, startSmtpMailbox } from "./smtp-mailbox.ts";
import { Device, startTestServer, type TestServer } from "./test-server.ts";

export const SITE = "https://sync.example.org";
export const FROM = "Daysync <noreply@sync.example.org>";
export let mailbox: SmtpMailbox;
export let server: TestServer;
export let admin: Device;
let people = 0;

/**
 * Starts the mailbox and the server before the file's tests (registering the admin), and stops them after; `env`
 * changes a setting for the file (a limit, say).
 */
export function useEmailServer(env: Record<string, string> = {}): void {
  beforeAll(async () => {
    mailbox = await startSmtpMailbox();
    server = await startTestServer({
      SMTP_URL: mailbox.url,
      // The test mailbox offers no STARTTLS (smtp:// requires it unless this is set).
      SMTP_ALLOW_PLAINTEXT: "true",
      MAIL_FROM: FROM,
      PUBLIC_URL: SITE,
      EMAIL_RATE_LIMIT_MAX: "1000",
      EMAIL_ACCOUNT_RATE_LIMIT_MAX: "3",
      LOGIN_RATE_LIMIT_MAX: "1000",
      ...env,
    });
    admin = new Device(server.url);
    await admin.register("Ada Admin", "ada.admin@example.com");
  });
  afterAll(async () => {
    await server.close();
    await mailbox.stop();
  });
}

/** A new number for a test's own address: no two tests of a run share one. */
export const nextPerson = () => ++people;

/** A new account, its registration's verification mail already gone out. */
export async function person(name = "Pat") {
  const device = new Device(server.url);
  const email = `${name.toLowerCase()}${nextPerson()}@example.com`;
  const user = await device.register(name, email);
  // Registration's verification mail goes after the answer.
  await server.mailSettled();
  return { device, user, email };
}

export const tokenOf = (link: string) => link.split("#")[1] ?? "";
export const password = (value: string) => ({ password: value, confirm_password: value });

/** The first mail to `email` after `ask`. */
export async function mailAfter(email: string, ask: () => Promise<unknown>): Promise<ReceivedMail> {
  const already = mailbox.to(email).length;
  await ask();
  await server.mailSettled();
  const mail = mailbox.to(email)[already];
  if (!mail) throw new Error(`no mail to ${email}`);
  return mail;
}
