import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";

const FROM = "Daysync <noreply@example.org>";

describe("SMTP_URL and MAIL_FROM", () => {
  it("sends no mail when neither is set", () => {
    const { email } = loadConfig({});
    expect(email.smtp).toBeUndefined();
    expect(email.addressRateLimit).toEqual({ max: 20, windowMs: 3_600_000 });
    expect(email.accountRateLimit).toEqual({ max: 5, windowMs: 3_600_000 });
  });

  it("reads smtp:// with STARTTLS on 587 and smtps:// on 465, with decoded credentials", () => {
    const plain = loadConfig({ SMTP_URL: "smtp://mailer:s%40cret%20word@mail.example.org", MAIL_FROM: FROM }).email;
    expect(plain).toMatchObject({
      smtp: { host: "mail.example.org", port: 587, secure: false, requireTls: true, auth: { user: "mailer", pass: "s@cret word" } },
      from: FROM,
    });
    const tls = loadConfig({ SMTP_URL: "smtps://apikey:k@smtp.example.com", MAIL_FROM: "noreply@example.com" }).email;
    expect(tls.smtp).toEqual({ host: "smtp.example.com", port: 465, secure: true, requireTls: false, auth: { user: "apikey", pass: "k" } });
    const local = loadConfig({ SMTP_URL: "smtp://127.0.0.1:2525", MAIL_FROM: FROM }).email;
    expect(local.smtp).toEqual({ host: "127.0.0.1", port: 2525, secure: false, requireTls: true, auth: undefined });
  });

  it("requires STARTTLS for smtp:// unless SMTP_ALLOW_PLAINTEXT=true", () => {
    const url = "smtp://mail.example.org";
    expect(loadConfig({ SMTP_URL: url, MAIL_FROM: FROM }).email.smtp?.requireTls).toBe(true);
    expect(loadConfig({ SMTP_URL: url, MAIL_FROM: FROM, SMTP_ALLOW_PLAINTEXT: "false" }).email.smtp?.requireTls).toBe(true);
    expect(loadConfig({ SMTP_URL: url, MAIL_FROM: FROM, SMTP_ALLOW_PLAINTEXT: "true" }).email.smtp?.requireTls).toBe(false);
    expect(() => loadConfig({ SMTP_URL: url, MAIL_FROM: FROM, SMTP_ALLOW_PLAINTEXT: "yes" })).toThrow(
      /SMTP_ALLOW_PLAINTEXT: must be true or false/,
    );
  });

  it("stops the start, naming the variable, for a malformed setting", () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ SMTP_URL: "mail.example.org:587", MAIL_FROM: FROM }, /SMTP_URL: must be smtp:\/\//],
      [{ SMTP_URL: "https://mail.example.org", MAIL_FROM: FROM }, /SMTP_URL: must be smtp:\/\//],
      [{ SMTP_URL: "smtp://mail.example.org/relay?x=1", MAIL_FROM: FROM }, /SMTP_URL: must have no path, query or fragment/],
      [{ SMTP_URL: "smtp://mail.example.org:99999", MAIL_FROM: FROM }, /SMTP_URL: not a URL/],
      [{ SMTP_URL: "smtp://mail.example.org", MAIL_FROM: "not an address" }, /MAIL_FROM: not an email address/],
      [{ SMTP_URL: "smtp://mail.example.org", MAIL_FROM: "Daysync <nobody>" }, /MAIL_FROM: not an email address/],
      [{ MAIL_FROM: FROM }, /MAIL_FROM: set, but SMTP_URL is not/],
      [
        { SMTP_URL: "smtp://mail.example.org", MAIL_FROM: FROM, EMAIL_RATE_LIMIT_MAX: "0" },
        /EMAIL_RATE_LIMIT_MAX: must be a positive whole number/,
      ],
    ];
    for (const [env, message] of cases) {
      expect(() => loadConfig(env), JSON.stringify(env)).toThrow(message);
    }
  });

  it("needs MAIL_FROM with SMTP_URL", () => {
    expect(() => loadConfig({ SMTP_URL: "smtp://mail.example.org" })).toThrow(/MAIL_FROM: required with SMTP_URL/);
  });
});
