/**
 * Sends mail through the operator's SMTP server (nodemailer). Each mail goes as plain text and HTML, exactly as
 * given: no tracking pixel, no rewritten link, no file or URL fetched into it.
 */
import nodemailer from "nodemailer";
import type { SmtpConfig } from "../config/email.ts";

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
    auth: smtp.auth,
    // A slow or unreachable SMTP server must not hold a send (or the shutdown waiting for it) for minutes.
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  return {
    async send(mail) {
      await transport.sendMail({
        from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        headers: { "Auto-Submitted": "auto-generated" },
        disableFileAccess: true,
        disableUrlAccess: true,
      });
    },
    async check() {
      await transport.verify();
    },
    close: () => transport.close(),
  };
}
