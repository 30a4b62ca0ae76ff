/**
 * The mails the server sends: each a subject, a plain-text and an HTML version of the same words, with the product's
 * name and a footer saying why it came. Links are written as they are (no tracking, no redirect), and the HTML has
 * no images.
 */
import { TEXT } from "@daysync/shared";
import type { Mail } from "../../adapters/mailer.ts";

export type MailContent = Omit<Mail, "to">;

const escapeHtml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");

/** What a mail client may turn into a link: a scheme or path, an address, `www.`, or a dotted domain name. */
const LINK_LIKE = /[:/\\@<>]|www[.．。｡]|\p{L}[.．。｡]\p{L}{2,}/iu;

/**
 * The greeting, with the account's name only as text a reader cannot mistake for the mail's own (issue 42): whoever
 * made an account chose its name, so line breaks and other controls become one space, and a name that holds a
 * link, an address or a domain, or runs long, is left out.
 */
export function greeting(name: string): string {
  const line = name.replace(/[\p{C}\p{Z}\s]+/gu, " ").trim();
  const shown = line.length > 0 && line.length <= 64 && !LINK_LIKE.test(line);
  return shown ? `Hello ${line},` : "Hello,";
}

interface Parts {
  subject: string;
  greeting: string;
  lines: string[];
  action: { label: string; url: string };
  after: string;
  /** The address of this installation, named in the footer. */
  siteUrl: string;
}

function layout({ subject, greeting, lines, action, after, siteUrl }: Parts): MailContent {
  const product = TEXT.productName;
  const footer = `You get this email because someone asked for it on ${product} (${siteUrl}). If it was not you, you can ignore it: nothing changes until the link is opened.`;
  const text = [
    greeting,
    "",
    ...lines,
    "",
    `${action.label}:`,
    action.url,
    "",
    after,
    "",
    "-- ",
    `${product} · ${siteUrl}`,
    footer,
    "",
  ].join("\n");
  const paragraph = (s: string) => `<p style="margin:0 0 16px">${escapeHtml(s)}</p>`;
  const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:24px;background:#f4f6f9;font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:#1f2933;line-height:1.5">
<div style="max-width:520px;margin:0 auto;background:#ffffff;border-radius:8px;padding:24px">
<p style="margin:0 0 24px;font-size:20px;font-weight:bold">${escapeHtml(product)}</p>
${paragraph(greeting)}
${lines.map(paragraph).join("\n")}
<p style="margin:24px 0"><a href="${escapeHtml(action.url)}" style="display:inline-block;background:#2563eb;color:#ffffff;text-decoration:none;padding:10px 18px;border-radius:6px;font-weight:bold">${escapeHtml(action.label)}</a></p>
<p style="margin:0 0 16px;font-size:13px;color:#52606d">Or copy this address into your browser: <a href="${escapeHtml(action.url)}" style="color:#2563eb;word-break:break-all">${escapeHtml(action.url)}</a></p>
${paragraph(after)}
</div>
<p style="max-width:520px;margin:16px auto 0;font-size:12px;color:#52606d">${escapeHtml(product)} · <a href="${escapeHtml(siteUrl)}" style="color:#52606d">${escapeHtml(siteUrl)}</a><br>${escapeHtml(footer)}</p>
</body>
</html>
`;
  return { subject, text, html };
}

export function verificationMail(p: { name: string; url: string; siteUrl: string }): MailContent {
  return layout({
    subject: `Confirm your email for ${TEXT.productName}`,
    greeting: greeting(p.name),
    lines: [`Please confirm that this is your email address for your ${TEXT.productName} account.`],
    action: { label: "Confirm my email", url: p.url },
    after: "The link works once, for 24 hours.",
    siteUrl: p.siteUrl,
  });
}

export function passwordResetMail(p: { name: string; url: string; siteUrl: string }): MailContent {
  return layout({
    subject: `Reset your ${TEXT.productName} password`,
    greeting: greeting(p.name),
    lines: ["Someone, hopefully you, asked to reset the password of your account. Open the link to choose a new one."],
    action: { label: "Choose a new password", url: p.url },
    after: "The link works once, for 30 minutes. Setting a new password signs out every other device of your account.",
    siteUrl: p.siteUrl,
  });
}

export function signInLinkMail(p: { name: string; url: string; siteUrl: string }): MailContent {
  return layout({
    subject: `Your ${TEXT.productName} sign-in link`,
    greeting: greeting(p.name),
    lines: ["Open the link on the device you want to sign in. No password needed."],
    action: { label: `Sign in to ${TEXT.productName}`, url: p.url },
    after: "The link works once, for 15 minutes.",
    siteUrl: p.siteUrl,
  });
}
