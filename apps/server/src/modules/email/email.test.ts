/**
 * Email (issue 26) against a real SMTP server (testing/smtp-mailbox.ts): the verification link, its single use and
 * expiry, and what every mail is (sender, parts, footer, no tracking, the account's name on one line).
 */
import { API, EMAIL_API, SETTINGS_API, type User, VERIFY_EMAIL_TTL_MS } from "@daysync/shared";
import { describe, expect, it } from "vitest";
import { mailAfter, mailbox, nextPerson, person, SITE, server, tokenOf, useEmailServer } from "../../testing/email-server.ts";
import { Device } from "../../testing/test-server.ts";

useEmailServer();

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

describe("a name in a mail", () => {
  /** What a reader of the mail would take for a message from the server, and follow. */
  const LURE = "Your account is locked. Unlock it at https://evil.example/unlock or www.evil.example";

  it("goes in on one line, without a link, whatever line breaks and URLs the account's name holds", async () => {
    // U+2028 is no control character, so a name may hold it; a line feed is refused now but old rows may hold one.
    const email = `lure${nextPerson()}@example.com`;
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
    const plain = `plain${nextPerson()}@example.com`;
    await new Device(server.url).register("Zoë O'Neil", plain);
    await server.mailSettled();
    expect(mailbox.to(plain)[0]?.text.split("\n")[0]).toBe("Hello Zoë O'Neil,");
  });
});
