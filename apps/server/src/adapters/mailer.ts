/**
 * Sends mail through the operator's SMTP server (nodemailer). Each mail goes as plain text and HTML, exactly as
 * given: no tracking pixel, no rewritten link, no file or URL fetched into it.
 */
import nodemailer from "nodemailer";
import type { SmtpConfig } from "../config/email.ts";

/** How the mail leaves this server, for the start log (issue 42: never in clear unless the operator said so). */
export function smtpTransportNotice(smtp: SmtpConfig): { level: "info" | "warn"; msg: string } {
  if (smtp.secure) return { level: "info", msg: `mail to ${smtp.host}:${smtp.port} over TLS (smtps://)` };
  if (smtp.requireTls) {
    return {
      level: "info",
      msg: `mail to ${smtp.host}:${smtp.port} only over STARTTLS: a mail server that does not offer it gets no mail (SMTP_ALLOW_PLAINTEXT=true allows plain text)`,
    };
  }
  return {
    level: "warn",
    msg: `SMTP_ALLOW_PLAINTEXT=true: mail to ${smtp.host}:${smtp.port}, with the SMTP credentials and sign-in links, goes in clear when the server offers no STARTTLS`,
  };
}

/** A refused STARTTLS named for the operator, with what to do about it. */
function explained(error: unknown, smtp: SmtpConfig): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (!smtp.requireTls || code !== "ETLS") return error;
  return new Error(
    `the mail server ${smtp.host}:${smtp.port} offers no STARTTLS, and mail is not sent in clear unless SMTP_ALLOW_PLAINTEXT=true (${(error as Error).message})`,
    { cause: error },
  );
}

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
  /** Resolves when the SMTP server accepts a connection (and the credentials); rejects with its problem. */
  check(): Promise<void>;
  close(): void;
}

export function createSmtpMailer(smtp: SmtpConfig, from: string): Mailer {
  const transport = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    requireTLS: smtp.requireTls,
    auth: smtp.auth,
    // A slow or unreachable SMTP server must not hold a send (or the shutdown waiting for it) for minutes.
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  return {
    async send(mail) {
      await transport
        .sendMail({
          from,
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          headers: { "Auto-Submitted": "auto-generated" },
          disableFileAccess: true,
          disableUrlAccess: true,
        })
        .catch((error: unknown) => {
          throw explained(error, smtp);
        });
    },
    async check() {
      await transport.verify().catch((error: unknown) => {
        throw explained(error, smtp);
      });
    },
    close: () => transport.close(),
  };
}
