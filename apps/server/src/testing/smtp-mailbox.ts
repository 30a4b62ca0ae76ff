/**
 * A real SMTP server on a loopback port for tests (smtp-server): it takes every mail, checks the credentials it was
 * started with, parses each message (mailparser) and keeps it, so a test can read the links out of the mailbox.
 */
import type { AddressInfo } from "node:net";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  /** The envelope's recipients. */
  to: string[];
  from: string;
  subject: string;
  text: string;
  html: string;
  headers: ParsedMail["headers"];
  /** The whole message as sent. */
  raw: string;
}

export interface SmtpMailbox {
  /** `smtp://user:password@127.0.0.1:PORT` for SMTP_URL. */
  url: string;
  port: number;
  readonly mails: ReceivedMail[];
  /** Every mail to this address so far. */
  to(address: string): ReceivedMail[];
  /** The next mail to this address beyond the `already` it had (default: what it has now); rejects after `timeoutMs`. */
  next(address: string, options?: { already?: number; timeoutMs?: number }): Promise<ReceivedMail>;
  /** The first link to this server's page `path` (e.g. `/reset-password`) in the mail's text. */
  linkIn(mail: ReceivedMail, path: string): string;
  stop(): Promise<void>;
}

const USER = "mailer";
const PASSWORD = "p@ss word";

export async function startSmtpMailbox(): Promise<SmtpMailbox> {
  const mails: ReceivedMail[] = [];
  const waiters = new Set<() => void>();
  const server = new SMTPServer({
    // Plain SMTP on loopback: no STARTTLS offered, so the client sends its credentials without TLS (tests only).
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    authMethods: ["PLAIN", "LOGIN"],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === USER && auth.password === PASSWORD) return callback(null, { user: USER });
      return callback(new Error("Invalid username or password"));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        simpleParser(raw).then(
          (parsed) => {
            mails.push({
              to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
              subject: parsed.subject ?? "",
              text: parsed.text ?? "",
              html: typeof parsed.html === "string" ? parsed.html : "",
              headers: parsed.headers,
              raw,
            });
            for (const wake of waiters) wake();
            callback();
          },
          (error: Error) => callback(error),
        );
      });
    },
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve((server.server.address() as AddressInfo).port));
  });

  const to = (address: string) => mails.filter((m) => m.to.includes(address.toLowerCase()));
  return {
    url: `smtp://${encodeURIComponent(USER)}:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}`,
    port,
    mails,
    to,
    next(address, options = {}) {
      const already = options.already ?? to(address).length;
      return new Promise((resolve, reject) => {
        const check = () => {
          const mail = to(address)[already];
          if (!mail) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(mail);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no mail to ${address} within ${options.timeoutMs ?? 5000} ms`));
        }, options.timeoutMs ?? 5000);
        if (!check()) waiters.add(check);
      });
    },
    linkIn(mail, path) {
      const match = new RegExp(`https?://[^\\s"<>]+${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}#[A-Za-z0-9_-]+`).exec(mail.text);
      if (!match) throw new Error(`no ${path} link in: ${mail.text}`);
      return match[0];
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
