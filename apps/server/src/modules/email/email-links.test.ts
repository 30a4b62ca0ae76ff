/**
 * The mailed links that sign in (issue 26) against a real SMTP server: "Forgot password?" and "Email me a sign-in
 * link", read out of the mailbox, their single use and expiry, the same answer for every address, the limits.
 */
import {
  ADMIN_API,
  API,
  EMAIL_API,
  LIVE_CLOSE,
  PASSWORD_RESET_TTL_MS,
  RESET_PASSWORD_API,
  SIGN_IN_LINK_TTL_MS,
  type User,
} from "@daysync/shared";
import { describe, expect, it } from "vitest";
import { admin, mailAfter, mailbox, password, person, SITE, server, tokenOf, useEmailServer } from "../../testing/email-server.ts";
import { Device } from "../../testing/test-server.ts";

useEmailServer();

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
