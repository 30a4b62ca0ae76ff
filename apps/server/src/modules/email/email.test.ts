/**
 * Email (issue 26) against a real SMTP server (testing/smtp-mailbox.ts): verification, "Forgot password?" and
 * sign-in links read out of the mailbox, their single use and expiry, the same answer for every address, the limits.
 */
import {
  ADMIN_API,
  API,
  EMAIL_API,
  LIVE_CLOSE,
  PASSWORD_RESET_TTL_MS,
  RESET_PASSWORD_API,
  SETTINGS_API,
  SIGN_IN_LINK_TTL_MS,
  type User,
  VERIFY_EMAIL_TTL_MS,
} from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../testing/free-port.ts";
import { LOG_LEVEL, LogCapture } from "../../testing/log-capture.ts";
import { type ReceivedMail, type SmtpMailbox, startSmtpMailbox } from "../../testing/smtp-mailbox.ts";
import { Device, startTestServer, type TestServer } from "../../testing/test-server.ts";

const SITE = "https://sync.example.org";
const FROM = "Daysync <noreply@sync.example.org>";
let mailbox: SmtpMailbox;
let server: TestServer;
let admin: Device;
let people = 0;

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
  });
  admin = new Device(server.url);
  await admin.register("Ada Admin", "ada.admin@example.com");
});
afterAll(async () => {
  await server.close();
  await mailbox.stop();
});

async function person(name = "Pat") {
  const device = new Device(server.url);
  const email = `${name.toLowerCase()}${++people}@example.com`;
  const user = await device.register(name, email);
  // Registration's verification mail goes after the answer.
  await server.mailSettled();
  return { device, user, email };
}

const tokenOf = (link: string) => link.split("#")[1] ?? "";
const password = (value: string) => ({ password: value, confirm_password: value });

async function mailAfter(email: string, ask: () => Promise<unknown>): Promise<ReceivedMail> {
  const already = mailbox.to(email).length;
  await ask();
  await server.mailSettled();
  const mail = mailbox.to(email)[already];
  if (!mail) throw new Error(`no mail to ${email}`);
  return mail;
}

describe("email verification", () => {
  it("mails a link at registration that verifies the address once, and tells the account's devices", async () => {
    const { device, user, email } = await person("Vera");
    expect(user.email_verified).toBe(false);
    const [mail] = mailbox.to(email);
    if (!mail) throw new Error("no verification mail");
    expect(mail.subject).toBe("Confirm your email for Daysync");
    const link = mailbox.linkIn(mail, "/verify-email");
    expect(link.startsWith(`${SITE}/verify-email#`)).toBe(true);

    // The unverified account works as any other, meanwhile.
    const live = await device.live();
    const visitor = new Device(server.url);
    // Opened on the device that registered: it stays signed in (opened elsewhere, the first verification would end
    // every other session and the password, email-ownership.test.ts).
    const res = await device.post(EMAIL_API.verify, { token: tokenOf(link) });
    expect(res).toMatchObject({ status: 200, body: { email } });
    await live.waitFor(() => live.events().some((e) => e.event.kind === "user.updated" && e.event.user.email_verified === true));
    expect((await device.get<{ user: User }>(API.me)).body.user.email_verified).toBe(true);
    live.close();

    const again = await visitor.post(EMAIL_API.verify, { token: tokenOf(link) });
    expect(again).toMatchObject({ status: 400, body: { error: { code: "verify_link_invalid" } } });
    // Verified, Resend sends nothing more.
    const before = mailbox.to(email).length;
    expect((await device.post(EMAIL_API.resendVerification)).status).toBe(202);
    await server.mailSettled();
    expect(mailbox.to(email)).toHaveLength(before);
  });

  it("refuses a link after 24 hours; Resend sends a new one that works", async () => {
    const { device, email } = await person("Late");
    const first = mailbox.to(email)[0];
    if (!first) throw new Error("no verification mail");
    server.clock.advance(VERIFY_EMAIL_TTL_MS);
    const expired = await device.post(EMAIL_API.verify, { token: tokenOf(mailbox.linkIn(first, "/verify-email")) });
    expect(expired).toMatchObject({ status: 400, body: { error: { code: "verify_link_invalid" } } });

    const fresh = await mailAfter(email, async () => expect((await device.post(EMAIL_API.resendVerification)).status).toBe(202));
    server.clock.advance(VERIFY_EMAIL_TTL_MS - 1);
    expect((await device.post(EMAIL_API.verify, { token: tokenOf(mailbox.linkIn(fresh, "/verify-email")) })).status).toBe(200);
  });

  it("answers Resend only to a signed-in device, and 429 once the account had its share", async () => {
    expect((await new Device(server.url).post(EMAIL_API.resendVerification)).status).toBe(401);
    const { device, email } = await person("Eager");
    // Registration's mail was the first of three.
    expect((await device.post(EMAIL_API.resendVerification)).status).toBe(202);
    expect((await device.post(EMAIL_API.resendVerification)).status).toBe(202);
    const limited = await device.post(EMAIL_API.resendVerification);
    expect(limited).toMatchObject({ status: 429, body: { error: { code: "rate_limited" } } });
    expect(mailbox.to(email)).toHaveLength(3);
  });
  it("sends a changed address (Settings) its own link; the account is unverified until it is used, and the old link is void", async () => {
    const { device, email } = await person("Moving");
    const oldMail = mailbox.to(email)[0];
    if (!oldMail) throw new Error("no verification mail");
    const newEmail = `moved.${email}`;
    const changed = await mailAfter(newEmail, async () => {
      const answer = await device.request<{ user: User }>("PUT", SETTINGS_API.email, { email: newEmail, password: "correct horse" });
      expect(answer.status).toBe(200);
      expect(answer.body.user).toMatchObject({ email: newEmail, email_verified: false });
    });
    const old = await device.post(EMAIL_API.verify, { token: tokenOf(mailbox.linkIn(oldMail, "/verify-email")) });
    expect(old).toMatchObject({ status: 400, body: { error: { code: "verify_link_invalid" } } });
    expect((await device.post(EMAIL_API.verify, { token: tokenOf(mailbox.linkIn(changed, "/verify-email")) })).status).toBe(200);
    expect((await device.request<{ user: User }>("GET", API.me)).body.user.email_verified).toBe(true);
  });
});

describe("mails", () => {
  it("come from MAIL_FROM with a plain-text and an HTML part, the product's name and footer, and no tracking", async () => {
    const { email } = await person("Reader");
    const mail = await mailAfter(email, () => new Device(server.url).post(EMAIL_API.signInLink, { email }));
    expect(mail.headers.get("from")).toMatchObject({ value: [{ name: "Daysync", address: "noreply@sync.example.org" }] });
    expect(mail.from).toBe("noreply@sync.example.org");
    expect(mail.raw).toMatch(/Content-Type: multipart\/alternative/i);
    expect(mail.raw).toMatch(/Content-Type: text\/plain/i);
    expect(mail.raw).toMatch(/Content-Type: text\/html/i);
    const link = mailbox.linkIn(mail, "/sign-in-link");
    for (const part of [mail.text, mail.html]) {
      expect(part).toContain("Daysync");
      expect(part).toContain("You get this email because someone asked for it on Daysync (https://sync.example.org)");
      expect(part).toContain(link);
    }
    // No image of any kind (a tracking pixel), and every link is the link itself or the site, nothing rewritten.
    expect(mail.html).not.toMatch(/<img|url\(|background=/i);
    const hrefs = [...mail.html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
    expect(new Set(hrefs)).toEqual(new Set([link, SITE]));
  });
});

describe("Forgot password?", () => {
  it("answers the same for any address, and mails only an account that has it and is not disabled", async () => {
    const { email } = await person("Known");
    const disabled = await person("Disabled");
    expect((await admin.request("PUT", ADMIN_API.disabled(disabled.user.id))).status).toBe(200);
    const counts = () => [mailbox.to(email).length, mailbox.to(disabled.email).length, mailbox.to("nobody@example.com").length];
    const [knownBefore = 0, disabledBefore = 0] = counts();
    const answers = [];
    for (const address of [email, "nobody@example.com", disabled.email, email.toUpperCase()]) {
      const res = await new Device(server.url).post(EMAIL_API.forgotPassword, { email: address });
      answers.push({ status: res.status, body: res.body });
    }
    expect(answers).toEqual(Array(4).fill({ status: 202, body: { requested: true } }));
    await server.mailSettled();
    expect(counts()).toEqual([knownBefore + 2, disabledBefore, 0]);
    expect(mailbox.to(email).at(-1)?.subject).toBe("Reset your Daysync password");
  });

  it("mails a link that sets the password once, signs out every other device and signs in the one that used it", async () => {
    const { device, email, user } = await person("Forgetful");
    const live = await device.live();
    const mail = await mailAfter(email, () => new Device(server.url).post(EMAIL_API.forgotPassword, { email }));
    const link = mailbox.linkIn(mail, "/reset-password");
    expect(link.startsWith(`${SITE}/reset-password#`)).toBe(true);

    const browser = new Device(server.url);
    const res = await browser.post<{ user: User }>(RESET_PASSWORD_API, { token: tokenOf(link), ...password("new battery staple") });
    expect(res.status).toBe(200);
    expect(res.body.user.id).toBe(user.id);
    expect((await browser.get<{ user: User }>(API.me)).body.user.id).toBe(user.id);
    expect(await live.waitForClose()).toBe(LIVE_CLOSE.sessionRevoked);
    expect((await device.get(API.me)).status).toBe(401);
    await expect(new Device(server.url).login(email, "correct horse")).rejects.toThrow(/401/);
    await new Device(server.url).login(email, "new battery staple");

    const again = await new Device(server.url).post(RESET_PASSWORD_API, { token: tokenOf(link), ...password("third battery") });
    expect(again).toMatchObject({ status: 400, body: { error: { code: "reset_link_invalid" } } });
  });

  it("refuses the link after 30 minutes", async () => {
    const { email } = await person("Slow");
    const mail = await mailAfter(email, () => new Device(server.url).post(EMAIL_API.forgotPassword, { email }));
    server.clock.advance(PASSWORD_RESET_TTL_MS);
    const res = await new Device(server.url).post(RESET_PASSWORD_API, {
      token: tokenOf(mailbox.linkIn(mail, "/reset-password")),
      ...password("too late horse"),
    });
    expect(res).toMatchObject({ status: 400, body: { error: { code: "reset_link_invalid" } } });
    await new Device(server.url).login(email, "correct horse");
  });

  it("sends an account at most its share of mails in the window, answering the same", async () => {
    const { email } = await person("Flooded");
    const before = mailbox.to(email).length;
    for (let i = 0; i < 5; i++) {
      const res = await new Device(server.url).post(EMAIL_API.forgotPassword, { email });
      expect(res).toMatchObject({ status: 202, body: { requested: true } });
    }
    await server.mailSettled();
    expect(mailbox.to(email).length - before).toBe(3);
    // The window passes: mail again.
    server.clock.advance(60 * 60 * 1000);
    await mailAfter(email, () => new Device(server.url).post(EMAIL_API.forgotPassword, { email }));
  });
});

describe("Email me a sign-in link", () => {
  it("signs in the device that uses it, once, and verifies the address on the way", async () => {
    const { email, user } = await person("Linked");
    const mail = await mailAfter(email, () => new Device(server.url).post(EMAIL_API.signInLink, { email }));
    expect(mail.subject).toBe("Your Daysync sign-in link");
    const link = mailbox.linkIn(mail, "/sign-in-link");
    expect(link.startsWith(`${SITE}/sign-in-link#`)).toBe(true);

    const phone = new Device(server.url);
    const other = new Device(server.url);
    // Two uses at once: exactly one signs in.
    const [a, b] = await Promise.all([
      phone.post<{ user: User }>(EMAIL_API.useSignInLink, { token: tokenOf(link) }),
      other.post<{ user: User }>(EMAIL_API.useSignInLink, { token: tokenOf(link) }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 400]);
    const winner = a.status === 200 ? phone : other;
    const me = await winner.get<{ user: User }>(API.me);
    expect(me.body.user).toMatchObject({ id: user.id, email_verified: true });
    const loser = a.status === 200 ? b : a;
    expect(loser.body).toMatchObject({ error: { code: "sign_in_link_invalid" } });
    expect((await (a.status === 200 ? other : phone).get(API.me)).status).toBe(401);
  });

  it("refuses the link after 15 minutes, and a disabled account's link", async () => {
    const { email, user } = await person("Expiring");
    const mail = await mailAfter(email, () => new Device(server.url).post(EMAIL_API.signInLink, { email }));
    server.clock.advance(SIGN_IN_LINK_TTL_MS);
    const late = await new Device(server.url).post(EMAIL_API.useSignInLink, { token: tokenOf(mailbox.linkIn(mail, "/sign-in-link")) });
    expect(late).toMatchObject({ status: 400, body: { error: { code: "sign_in_link_invalid" } } });

    const fresh = await mailAfter(email, () => new Device(server.url).post(EMAIL_API.signInLink, { email }));
    expect((await admin.request("PUT", ADMIN_API.disabled(user.id))).status).toBe(200);
    const refused = await new Device(server.url).post(EMAIL_API.useSignInLink, { token: tokenOf(mailbox.linkIn(fresh, "/sign-in-link")) });
    expect(refused).toMatchObject({ status: 403, body: { error: { code: "account_disabled" } } });
    // And no new mail while disabled, the answer unchanged.
    const before = mailbox.to(email).length;
    expect(await new Device(server.url).post(EMAIL_API.signInLink, { email })).toMatchObject({ status: 202, body: { requested: true } });
    await server.mailSettled();
    expect(mailbox.to(email)).toHaveLength(before);
  });

  it("refuses a malformed token or email with 400 naming it", async () => {
    const bad = await new Device(server.url).post(EMAIL_API.useSignInLink, { token: "x" });
    expect(bad).toMatchObject({ status: 400, body: { error: { code: "validation", field: "token" } } });
    const noEmail = await new Device(server.url).post(EMAIL_API.signInLink, { email: "not an email" });
    expect(noEmail).toMatchObject({ status: 400, body: { error: { field: "email" } } });
  });
});

describe("limits per address", () => {
  it("answers 429 past EMAIL_RATE_LIMIT_MAX requests from one address, whatever the email", async () => {
    const limited = await startTestServer({
      SMTP_URL: mailbox.url,
      SMTP_ALLOW_PLAINTEXT: "true",
      MAIL_FROM: FROM,
      EMAIL_RATE_LIMIT_MAX: "2",
    });
    try {
      const visitor = new Device(limited.url);
      expect((await visitor.post(EMAIL_API.signInLink, { email: "a@example.com" })).status).toBe(202);
      expect((await visitor.post(EMAIL_API.signInLink, { email: "b@example.com" })).status).toBe(202);
      const third = await visitor.post(EMAIL_API.signInLink, { email: "c@example.com" });
      expect(third).toMatchObject({ status: 429, body: { error: { code: "rate_limited" } } });
      expect(third.headers.get("retry-after")).toMatch(/^\d+$/);
    } finally {
      await limited.close();
    }
  });
});

describe("a mail server that is down", () => {
  it("does not stop the start or change the answer; the problem is logged", async () => {
    const log = new LogCapture();
    const down = await startTestServer(
      { SMTP_URL: `smtp://127.0.0.1:${await freePort()}`, MAIL_FROM: FROM, LOG_LEVEL: "warn" },
      { logStream: log },
    );
    try {
      const device = new Device(down.url);
      const user = await device.register("Patient", "patient@example.com");
      expect(user.email_verified).toBe(false);
      const res = await new Device(down.url).post(EMAIL_API.forgotPassword, { email: "patient@example.com" });
      expect(res).toMatchObject({ status: 202, body: { requested: true } });
      await down.mailSettled();
      const errors = log.atLeast(LOG_LEVEL.error).map((line) => line.msg);
      expect(errors).toContain("password_reset mail: the mail was not sent");
      expect(errors).toContain("verification mail: the mail was not sent");
      expect((await device.get(API.me)).status).toBe(200);
    } finally {
      await down.close();
    }
  });
});

describe("a name in a mail", () => {
  /** What a reader of the mail would take for a message from the server, and follow. */
  const LURE = "Your account is locked. Unlock it at https://evil.example/unlock or www.evil.example";

  it("goes in on one line, without a link, whatever line breaks and URLs the account's name holds", async () => {
    // U+2028 is no control character, so a name may hold it; a line feed is refused now but old rows may hold one.
    const email = `lure${++people}@example.com`;
    await new Device(server.url).register(`Mallory\u2028\u2028${LURE}`, email);
    await server.mailSettled();
    const user = await server.db.selectFrom("users").select("id").where("email", "=", email).executeTakeFirstOrThrow();
    await server.db
      .updateTable("users")
      .set({ name: `Mallory\r\n\r\n${LURE}\u0085` })
      .where("id", "=", user.id)
      .execute();
    const reset = await mailAfter(email, () => new Device(server.url).post(EMAIL_API.forgotPassword, { email }));
    const [verification] = mailbox.to(email);
    for (const mail of [verification, reset]) {
      if (!mail) throw new Error("no mail");
      const greeting = mail.text.split("\n")[0] ?? "";
      expect(greeting).toMatch(/^Hello\b/);
      expect(greeting).not.toMatch(/[\u2028\u2029\u0085\r]/);
      expect(mail.text).not.toContain("Unlock it");
      for (const body of [mail.text, mail.html]) {
        expect(body).not.toMatch(/evil\.example/);
      }
    }
    const plain = `plain${++people}@example.com`;
    await new Device(server.url).register("Zoë O'Neil", plain);
    await server.mailSettled();
    expect(mailbox.to(plain)[0]?.text.split("\n")[0]).toBe("Hello Zoë O'Neil,");
  });
});

describe("a mail server that offers no STARTTLS", () => {
  it("gets no mail through smtp:// unless SMTP_ALLOW_PLAINTEXT=true, and the log says why from the start", async () => {
    const log = new LogCapture();
    const strict = await startTestServer({ SMTP_URL: mailbox.url, MAIL_FROM: FROM, LOG_LEVEL: "info" }, { logStream: log });
    try {
      const email = `strict${++people}@example.com`;
      await new Device(strict.url).register("Strict", email);
      await strict.mailSettled();
      expect(mailbox.to(email)).toEqual([]);
      const lines = log.lines();
      expect(lines.map((line) => line.msg)).toContainEqual(expect.stringMatching(/only over STARTTLS.*SMTP_ALLOW_PLAINTEXT=true/));
      const failed = lines.find((line) => line.msg === "verification mail: the mail was not sent");
      expect(JSON.stringify(failed?.err)).toMatch(/offers no STARTTLS, and mail is not sent in clear unless SMTP_ALLOW_PLAINTEXT=true/);
    } finally {
      await strict.close();
    }
    // The main server of this file sets SMTP_ALLOW_PLAINTEXT=true against the same mailbox: its mail arrives, with a warning at start.
    const { email } = await person("Plain");
    expect(mailbox.to(email)).toHaveLength(1);
  });
});

describe("without SMTP", () => {
  it("says email is off, answers 404 email_not_configured, and registration sends nothing", async () => {
    const plain = await startTestServer();
    try {
      const visitor = new Device(plain.url);
      expect(await visitor.get(EMAIL_API.config)).toMatchObject({ status: 200, body: { enabled: false } });
      expect((await new Device(server.url).get(EMAIL_API.config)).body).toEqual({ enabled: true });
      const user = await visitor.register("Offline", "offline@example.com");
      expect(user.email_verified).toBe(false);
      const calls: Array<[string, unknown]> = [
        [EMAIL_API.forgotPassword, { email: "offline@example.com" }],
        [EMAIL_API.signInLink, { email: "offline@example.com" }],
        [EMAIL_API.useSignInLink, { token: "a".repeat(43) }],
        [EMAIL_API.verify, { token: "a".repeat(43) }],
        [EMAIL_API.resendVerification, {}],
      ];
      for (const [path, body] of calls) {
        const res = await visitor.post(path, body);
        expect(res, path).toMatchObject({ status: 404, body: { error: { code: "email_not_configured" } } });
      }
      await plain.mailSettled();
      expect(mailbox.to("offline@example.com")).toHaveLength(0);
    } finally {
      await plain.close();
    }
  });
});
