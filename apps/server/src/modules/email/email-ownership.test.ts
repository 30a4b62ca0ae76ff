/**
 * Issue 42, points 3 and 4, against a real SMTP server: an address cannot be pre-claimed (the first verification
 * through a mailed link ends every other session and the password set before it), and mailed links die with the
 * address and the password they were made under.
 */
import { API, EMAIL_API, EMAIL_UNCONFIRMED_REGISTER_MESSAGE, RESET_PASSWORD_API, SETTINGS_API, type User } from "@daysync/shared";
import { describe, expect, it } from "vitest";
import { mailAfter, mailbox, nextPerson, password, server, tokenOf, useEmailServer } from "../../testing/email-server.ts";
import { Device } from "../../testing/test-server.ts";

// Room for the mails of many links to one account (the other email tests keep the limit low to test it).
useEmailServer({ EMAIL_ACCOUNT_RATE_LIMIT_MAX: "100" });

async function register(name: string, email: string, pass = "correct horse") {
  const device = new Device(server.url);
  const user = await device.register(name, email, pass);
  await server.mailSettled();
  return { device, user };
}

const signInLinkTo = async (email: string) =>
  tokenOf(mailbox.linkIn(await mailAfter(email, () => new Device(server.url).post(EMAIL_API.signInLink, { email })), "/sign-in-link"));
const resetLinkTo = async (email: string) =>
  tokenOf(
    mailbox.linkIn(await mailAfter(email, () => new Device(server.url).post(EMAIL_API.forgotPassword, { email })), "/reset-password"),
  );
const canLogIn = async (email: string, pass: string) => (await new Device(server.url).post(API.login, { email, password: pass })).status;

describe("an address cannot be pre-claimed", () => {
  it("the owner's first sign-in link ends the squatter's session and password", async () => {
    const victim = `victim${nextPerson()}@example.com`;
    const squatter = await register("Squatter", victim, "squatter horse");
    const squatterLive = await squatter.device.live();

    const owner = new Device(server.url);
    const used = await owner.post<{ user: User }>(EMAIL_API.useSignInLink, { token: await signInLinkTo(victim) });
    expect(used.status).toBe(200);
    expect(used.body.user).toMatchObject({ id: squatter.user.id, email_verified: true });

    expect((await squatter.device.get(API.me)).status).toBe(401);
    await squatterLive.waitForClose();
    expect(await canLogIn(victim, "squatter horse")).toBe(401);
    expect((await owner.get(API.me)).status).toBe(200);
  });

  it("the owner's first use of the verification link ends the squatter's session and password", async () => {
    const victim = `victim${nextPerson()}@example.com`;
    const squatter = await register("Squatter", victim, "squatter horse");
    const [mail] = mailbox.to(victim);
    if (!mail) throw new Error("no verification mail");

    const verified = await new Device(server.url).post(EMAIL_API.verify, { token: tokenOf(mailbox.linkIn(mail, "/verify-email")) });
    expect(verified).toMatchObject({ status: 200, body: { email: victim } });
    expect((await squatter.device.get(API.me)).status).toBe(401);
    expect(await canLogIn(victim, "squatter horse")).toBe(401);
  });

  it("a person who verifies on the device they registered with keeps that device and their password", async () => {
    const email = `honest${nextPerson()}@example.com`;
    const { device } = await register("Honest", email, "honest horse");
    const [mail] = mailbox.to(email);
    if (!mail) throw new Error("no verification mail");
    expect((await device.post(EMAIL_API.verify, { token: tokenOf(mailbox.linkIn(mail, "/verify-email")) })).status).toBe(200);
    expect((await device.get<{ user: User }>(API.me)).body.user.email_verified).toBe(true);
    expect(await canLogIn(email, "honest horse")).toBe(200);
  });

  it("registering an address that an unconfirmed account has answers 409 saying what to do instead", async () => {
    const victim = `victim${nextPerson()}@example.com`;
    await register("Squatter", victim);
    const res = await new Device(server.url).post(API.register, { name: "Owner", email: victim, ...password("owner horse 1") });
    expect(res).toMatchObject({ status: 409, body: { error: { code: "email_unconfirmed", message: EMAIL_UNCONFIRMED_REGISTER_MESSAGE } } });
  });
});

describe("mailed links are bound to the address and the password they were made under", () => {
  async function personWithLinks() {
    const email = `bound${nextPerson()}@example.com`;
    const { device, user } = await register("Bound", email);
    return { device, user, email, signIn: await signInLinkTo(email), reset: await resetLinkTo(email) };
  }
  const changeEmail = (device: Device, email: string) => device.request("PUT", SETTINGS_API.email, { email, password: "correct horse" });

  it("a sign-in link sent before an email change does not sign in after it", async () => {
    const p = await personWithLinks();
    expect((await changeEmail(p.device, `moved${nextPerson()}@example.com`)).status).toBe(200);
    const res = await new Device(server.url).post(EMAIL_API.useSignInLink, { token: p.signIn });
    expect(res).toMatchObject({ status: 400, body: { error: { code: "sign_in_link_invalid" } } });
  });

  it("a reset link sent before an email change does not set a password after it", async () => {
    const p = await personWithLinks();
    expect((await changeEmail(p.device, `moved${nextPerson()}@example.com`)).status).toBe(200);
    const res = await new Device(server.url).post(RESET_PASSWORD_API, { token: p.reset, ...password("taken over 1") });
    expect(res).toMatchObject({ status: 400, body: { error: { code: "reset_link_invalid" } } });
  });

  it("a reset link sent before a password change does not set a password after it", async () => {
    const p = await personWithLinks();
    const body = { current_password: "correct horse", ...password("changed horse 1") };
    expect((await p.device.request("PUT", SETTINGS_API.password, body)).status).toBe(200);
    const res = await new Device(server.url).post(RESET_PASSWORD_API, { token: p.reset, ...password("taken over 1") });
    expect(res).toMatchObject({ status: 400, body: { error: { code: "reset_link_invalid" } } });
    expect(await canLogIn(p.email, "changed horse 1")).toBe(200);
  });
});
