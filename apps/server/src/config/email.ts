/**
 * Email settings (issue 26): `SMTP_URL`, `MAIL_FROM`, `SMTP_ALLOW_PLAINTEXT`, and how often mail may be asked for. Read by config.ts; each
 * problem names its variable, and any problem stops the server at start. Without `SMTP_URL` the server sends no mail.
 */
import type { RateLimit } from "./config.ts";

export interface SmtpConfig {
  host: string;
  port: number;
  /** smtps://: TLS from the first byte (port 465); smtp://: STARTTLS (port 587). */
  secure: boolean;
  /**
   * smtp:// only: STARTTLS is required, so credentials and link tokens never go in clear (issue 42), unless the
   * operator set `SMTP_ALLOW_PLAINTEXT=true`; then STARTTLS is used when the server offers it.
   */
  requireTls: boolean;
  /** Credentials from the URL, decoded; undefined when it has none. */
  auth: { user: string; pass: string } | undefined;
}

export interface EmailConfig {
  /** Undefined: no SMTP server, so no mail, and none of the buttons that send one. */
  smtp: SmtpConfig | undefined;
  /** The From header: `Daysync <noreply@example.com>` or a bare address. */
  from: string;
  /** Mails asked for per client address (answered 429 beyond it). */
  addressRateLimit: RateLimit;
  /** Mails of one kind per account (beyond it nothing is sent, and the answer stays the same). */
  accountRateLimit: RateLimit;
}

const ADDRESS = /^[^\s@<>"]+@[^\s@<>"]+$/;

/** `noreply@example.com` or `Display Name <noreply@example.com>`. */
function isMailbox(value: string): boolean {
  const named = /^([^<>]*)<([^<>]+)>$/.exec(value);
  return named ? ADDRESS.test((named[2] ?? "").trim()) : ADDRESS.test(value);
}

function parseSmtpUrl(value: string, allowPlaintext: boolean, problems: string[]): SmtpConfig | undefined {
  const shape = "must be smtp://user:password@host:587 or smtps://user:password@host:465 (user and password optional)";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    problems.push(`SMTP_URL: not a URL (${shape})`);
    return undefined;
  }
  if ((url.protocol !== "smtp:" && url.protocol !== "smtps:") || !url.hostname) {
    problems.push(`SMTP_URL: ${shape}`);
    return undefined;
  }
  if ((url.pathname && url.pathname !== "/") || url.search || url.hash) {
    problems.push(`SMTP_URL: must have no path, query or fragment (${shape})`);
    return undefined;
  }
  const secure = url.protocol === "smtps:";
  let auth: SmtpConfig["auth"];
  try {
    auth = url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined;
  } catch {
    problems.push("SMTP_URL: the user or password is not properly %-encoded");
    return undefined;
  }
  return {
    host: url.hostname.replace(/^\[|\]$/g, ""),
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    requireTls: !secure && !allowPlaintext,
    auth,
  };
}

function positive(name: string, value: string | undefined, fallback: number, problems: string[]): number {
  if (value === undefined || value.trim() === "") return fallback;
  const n = Number(value);
  if (Number.isInteger(n) && n > 0) return n;
  problems.push(`${name}: must be a positive whole number`);
  return fallback;
}

/** Reads the email settings; what is wrong goes to `problems`, one line per variable. */
export function parseEmailConfig(env: NodeJS.ProcessEnv, problems: string[]): EmailConfig {
  const smtpUrl = env.SMTP_URL?.trim();
  const from = env.MAIL_FROM?.trim() ?? "";
  const allowPlaintext = env.SMTP_ALLOW_PLAINTEXT?.trim() ?? "";
  if (!["", "true", "false"].includes(allowPlaintext)) problems.push("SMTP_ALLOW_PLAINTEXT: must be true or false");
  const smtp = smtpUrl ? parseSmtpUrl(smtpUrl, allowPlaintext === "true", problems) : undefined;
  if (smtpUrl && !from) problems.push("MAIL_FROM: required with SMTP_URL (the sender of every mail, e.g. Daysync <noreply@example.com>)");
  if (from && !isMailbox(from)) problems.push(`MAIL_FROM: not an email address: ${from}`);
  if (from && !smtpUrl) problems.push("MAIL_FROM: set, but SMTP_URL is not (set both to send mail, or neither)");
  const windowMs = positive("EMAIL_RATE_LIMIT_WINDOW_MS", env.EMAIL_RATE_LIMIT_WINDOW_MS, 60 * 60 * 1000, problems);
  return {
    smtp,
    from,
    addressRateLimit: { max: positive("EMAIL_RATE_LIMIT_MAX", env.EMAIL_RATE_LIMIT_MAX, 20, problems), windowMs },
    accountRateLimit: { max: positive("EMAIL_ACCOUNT_RATE_LIMIT_MAX", env.EMAIL_ACCOUNT_RATE_LIMIT_MAX, 5, problems), windowMs },
  };
}
