/**
 * Payments against a local fake of Stripe's API (testing/stripe-fake.ts): checkouts, the signed webhook and its
 * refusals, subscriptions whatever the order of their events, paid extensions for everyone; and payments off.
 */
import {
  API,
  DAY_MS,
  DISCUSSIONS_API,
  type DiscussionDetails,
  FREE_TYPE_ID,
  PAYMENTS_API,
  PREMIUM_TYPE_ID,
  SETTINGS_API,
  type User,
} from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdmin } from "../../admin.ts";
import { createThroughApi, join, person, ready } from "../../testing/discussion-api.ts";
import { FAKE_PRICES, StripeFake } from "../../testing/stripe-fake.ts";
import { type Device, startTestServer, TestClock, type TestServer } from "../../testing/test-server.ts";

const DAY_S = 24 * 60 * 60;

let fake: StripeFake;
let server: TestServer;
const clock = new TestClock();
const nowSeconds = () => Math.floor(clock.now() / 1000);

beforeAll(async () => {
  fake = await StripeFake.start(nowSeconds);
  server = await startTestServer(fake.env(), { clock });
  fake.webhookUrl = server.url + PAYMENTS_API.webhook;
});

afterAll(async () => {
  await server?.close();
  await fake?.close();
});

const me = async (device: Device) => (await device.get<{ user: User }>(API.me)).body.user;
const endsAt = async (device: Device, id: string) => (await device.get<DiscussionDetails>(DISCUSSIONS_API.one(id))).body.discussion.ends_at;

/** A Free user who has opened Checkout for Premium: the fake's session. */
async function upgrading(name: string) {
  const who = await person(server, name);
  const res = await who.device.post<{ url: string }>(PAYMENTS_API.premiumCheckout);
  expect(res.status).toBe(200);
  const session = fake.lastSession();
  expect(res.body.url).toBe(session.url);
  expect(session).toMatchObject({ mode: "subscription", client_reference_id: who.user.id, amount_total: 499 });
  return { ...who, session };
}

/** Two Free members of one discussion (Ann created it). */
async function twoMembers() {
  const ann = await person(server, "Ann");
  const bob = await person(server, "Bob");
  const details = await createThroughApi(ann.device, "Trip", "Ann");
  expect((await join(bob.device, details.discussion.public_id, "Bob")).status).toBe(201);
  return { ann, bob, id: details.discussion.id };
}

async function extensionCheckout(device: Device, id: string, days: 7 | 30) {
  const res = await device.post<{ url: string }>(PAYMENTS_API.extensionCheckout, { discussion_id: id, days });
  expect(res.status).toBe(200);
  return fake.lastSession();
}

describe("payments on", () => {
  it("says so on the public config", async () => {
    const res = await fetch(server.url + PAYMENTS_API.config);
    expect(await res.json()).toEqual({ payments: true, donation_url: null });
  });

  it("Upgrade: a paid subscription Checkout puts the person on Premium until its period ends, live on their devices", async () => {
    const { device, session } = await upgrading("Pat");
    const live = await ready(device);
    const { status } = (await fake.pay(session.id)) ?? {};
    expect(status).toBe(200);
    const user = await me(device);
    const subscription = fake.subscriptions.get(fake.lastSession().subscription ?? "");
    expect(user).toMatchObject({ subscription_type_id: PREMIUM_TYPE_ID, payment_mode: "stripe" });
    // Until the period paid for ends, and a day of grace for Stripe's renewal to arrive.
    expect(Date.parse(user.date_expiration_subscription)).toBe((subscription?.items.data[0]?.current_period_end ?? 0) * 1000 + DAY_MS);
    await live.waitFor((r) =>
      r.some((m) => m.type === "event" && m.event.kind === "user.updated" && m.event.user.subscription_type_id === PREMIUM_TYPE_ID),
    );
    live.close();
    // Already Premium: no second subscription.
    expect((await device.post(PAYMENTS_API.premiumCheckout)).status).toBe(409);
    // The billing portal of their customer.
    const portal = await device.post<{ url: string }>(PAYMENTS_API.portal);
    expect(portal.status).toBe(200);
    expect(portal.body.url.startsWith(`${fake.url}/portal/`)).toBe(true);
  });

  it("deleting an account on Premium cancels its subscription at Stripe first; with Stripe down, nothing is deleted", async () => {
    const { device, email, session } = await upgrading("Leaving");
    expect((await fake.pay(session.id))?.status).toBe(200);
    const subscriptionId = fake.lastSession().subscription ?? "";
    expect(fake.subscriptions.get(subscriptionId)?.status).toBe("active");
    const confirm = { email, password: "correct horse" };

    fake.down = true;
    try {
      const refused = await device.request("DELETE", SETTINGS_API.account, confirm);
      expect(refused).toMatchObject({ status: 502, body: { error: { code: "payment_provider_unavailable" } } });
    } finally {
      fake.down = false;
    }
    expect((await me(device)).subscription_type_id).toBe(PREMIUM_TYPE_ID);

    expect((await device.request("DELETE", SETTINGS_API.account, confirm)).status).toBeLessThan(300);
    expect(fake.subscriptions.get(subscriptionId)?.status).toBe("canceled");
  });

  it("sends the person back to PUBLIC_URL when the operator set it, not to the address the request came in on", async () => {
    const behindProxy = await startTestServer({ ...fake.env(), PUBLIC_URL: "https://daysync.example.com" }, { clock });
    try {
      const who = await person(behindProxy, "Proxied");
      expect((await who.device.post(PAYMENTS_API.premiumCheckout)).status).toBe(200);
      const { success_url, cancel_url } = fake.lastSession();
      expect(success_url.startsWith("https://daysync.example.com/")).toBe(true);
      expect(cancel_url.startsWith("https://daysync.example.com/")).toBe(true);
    } finally {
      await behindProxy.close();
    }
  });

  it("refuses a webhook with a bad signature or a stale timestamp, and grants nothing", async () => {
    const { device, session } = await upgrading("Sid");
    await fake.pay(session.id, { send: false });
    const object = { id: session.id, object: "checkout.session" };
    const wrongSecret = await fake.send("checkout.session.completed", object, { secret: "whsec_not_ours" });
    expect(wrongSecret.status).toBe(400);
    expect(wrongSecret.body).toMatchObject({ error: { code: "bad_signature" } });
    const stale = await fake.send("checkout.session.completed", object, { timestamp: Math.floor(Date.now() / 1000) - 10 * 60 });
    expect(stale.status).toBe(400);
    expect(stale.body).toMatchObject({ error: { code: "bad_signature" } });
    const unsigned = await fetch(fake.webhookUrl, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(unsigned.status).toBe(400);
    expect((await me(device)).subscription_type_id).toBe(FREE_TYPE_ID);
    // The same event, signed: granted.
    expect((await fake.send("checkout.session.completed", object)).status).toBe(200);
    expect((await me(device)).subscription_type_id).toBe(PREMIUM_TYPE_ID);
  });

  it("grants nothing for an unpaid session, nor for one whose amount is not the price", async () => {
    const unpaid = await upgrading("Una");
    expect((await fake.pay(unpaid.session.id, { payment_status: "unpaid" }))?.status).toBe(200);
    expect((await me(unpaid.device)).subscription_type_id).toBe(FREE_TYPE_ID);
    const confirmed = await unpaid.device.post(PAYMENTS_API.confirm(unpaid.session.id));
    expect(confirmed.body).toEqual({ status: "pending" });

    const cheap = await upgrading("Wes");
    expect((await fake.pay(cheap.session.id, { amount_total: 1 }))?.status).toBe(200);
    expect((await me(cheap.device)).subscription_type_id).toBe(FREE_TYPE_ID);
    expect((await cheap.device.post(PAYMENTS_API.confirm(cheap.session.id))).body).toEqual({ status: "refused" });

    const { ann, id } = await twoMembers();
    const before = await endsAt(ann.device, id);
    const extension = await extensionCheckout(ann.device, id, 30);
    expect(extension.amount_total).toBe(FAKE_PRICES.extension30.unit_amount);
    await fake.pay(extension.id, { amount_total: FAKE_PRICES.extension7.unit_amount });
    expect(await endsAt(ann.device, id)).toBe(before);
  });

  it("applies a subscription by its state at Stripe, whatever order its events come in; cancelled, back to Free", async () => {
    const { device, session } = await upgrading("Oda");
    await fake.pay(session.id);
    const subscriptionId = fake.lastSession().subscription ?? "";
    const activeSnapshot = fake.updateSubscription(subscriptionId, {});
    // A renewal: the period moves on, and so does the plan's end.
    const renewedEnd = nowSeconds() + 60 * DAY_S;
    fake.updateSubscription(subscriptionId, { current_period_end: renewedEnd });
    await fake.send("customer.subscription.updated", fake.updateSubscription(subscriptionId, {}));
    expect(Date.parse((await me(device)).date_expiration_subscription)).toBe(renewedEnd * 1000 + DAY_MS);
    // Cancelled: its deletion arrives before an older update that still says active.
    const canceled = fake.updateSubscription(subscriptionId, { status: "canceled" });
    const live = await ready(device);
    await fake.send("customer.subscription.deleted", canceled);
    const back = await me(device);
    expect(back).toMatchObject({ subscription_type_id: FREE_TYPE_ID, max_message_duration: 15, payment_mode: "" });
    await live.waitFor((r) =>
      r.some((m) => m.type === "event" && m.event.kind === "user.updated" && m.event.user.subscription_type_id === FREE_TYPE_ID),
    );
    live.close();
    const late = await fake.send("customer.subscription.updated", activeSnapshot, { created: nowSeconds() - 60 });
    expect(late.status).toBe(200);
    expect((await me(device)).subscription_type_id).toBe(FREE_TYPE_ID);
    // The same goes the other way: a late "created" for a live subscription keeps Premium.
    const again = await upgrading("Ode");
    await fake.pay(again.session.id);
    const sub = fake.lastSession().subscription ?? "";
    await fake.send("customer.subscription.created", { ...fake.updateSubscription(sub, {}), status: "incomplete" });
    expect((await me(again.device)).subscription_type_id).toBe(PREMIUM_TYPE_ID);
  });

  it("ends a paid Premium a day after its period when Stripe says nothing more", async () => {
    const { device, session } = await upgrading("Eve");
    await fake.pay(session.id);
    await device.request("PUT", API.retention, { max_message_duration: null });
    const end = Date.parse((await me(device)).date_expiration_subscription);
    // Still Premium just after the period paid for: the renewal may be on its way.
    clock.advance(end - DAY_MS - clock.now() + 1000);
    await server.sweeper.sweep();
    expect((await me(device)).subscription_type_id).toBe(PREMIUM_TYPE_ID);
    clock.advance(DAY_MS);
    await server.sweeper.sweep();
    expect(await me(device)).toMatchObject({ subscription_type_id: FREE_TYPE_ID, max_message_duration: 15 });
    clock.current = new TestClock().current;
  });

  it("never ends a Premium granted by the operator", async () => {
    const { device, email, session } = await upgrading("Gus");
    await fake.pay(session.id);
    const subscriptionId = fake.lastSession().subscription ?? "";
    expect((await runAdmin(["plan", "set", email, "premium"], server.env)).code).toBe(0);
    const granted = await me(device);
    await fake.send("customer.subscription.deleted", fake.updateSubscription(subscriptionId, { status: "canceled" }));
    expect(await me(device)).toEqual(granted);
  });

  it("a repeated event grants once; the success page and a late webhook grant once between them", async () => {
    const { ann, bob, id } = await twoMembers();
    const start = await endsAt(ann.device, id);
    const first = await extensionCheckout(bob.device, id, 7);
    const sent = await fake.pay(first.id);
    expect(sent?.status).toBe(200);
    const repeat = await fake.send(sent?.event.type ?? "", sent?.event.data.object ?? {}, { id: sent?.event.id });
    expect(repeat.status).toBe(200);
    expect(await endsAt(ann.device, id)).toBe(start + 7 * DAY_MS);

    const second = await extensionCheckout(bob.device, id, 30);
    await fake.pay(second.id, { send: false });
    expect((await bob.device.post(PAYMENTS_API.confirm(second.id))).body).toEqual({ status: "granted" });
    expect((await bob.device.post(PAYMENTS_API.confirm(second.id))).body).toEqual({ status: "granted" });
    await fake.send("checkout.session.completed", { id: second.id, object: "checkout.session" });
    expect(await endsAt(ann.device, id)).toBe(start + 37 * DAY_MS);
    // Another person's session is not theirs to confirm.
    expect((await ann.device.post(PAYMENTS_API.confirm(second.id))).status).toBe(404);
    // One Stripe does not know is not found either: Stripe answered, so it is no 502 (found by the fuzz, issue 42).
    expect(await ann.device.post(PAYMENTS_API.confirm("cs_test_nosuchsession"))).toMatchObject({
      status: 404,
      body: { error: { code: "not_found" } },
    });
  });

  it("two members paying at once extend it twice, for everyone, live", async () => {
    const { ann, bob, id } = await twoMembers();
    const start = await endsAt(ann.device, id);
    const annLive = await ready(ann.device);
    const a = await extensionCheckout(ann.device, id, 7);
    const b = await extensionCheckout(bob.device, id, 7);
    const answers = await Promise.all([fake.pay(a.id), fake.pay(b.id)]);
    expect(answers.map((r) => r?.status)).toEqual([200, 200]);
    expect(await endsAt(bob.device, id)).toBe(start + 14 * DAY_MS);
    await annLive.waitFor((r) =>
      r.some((m) => m.type === "event" && m.event.kind === "discussion.upserted" && m.event.discussion.ends_at === start + 14 * DAY_MS),
    );
    annLive.close();
  });

  it("refuses before checkout an extension past the limit, and to anyone not a member", async () => {
    const { ann, id } = await twoMembers();
    const sessions = fake.sessions.size;
    for (let i = 0; i < 2; i++) await fake.pay((await extensionCheckout(ann.device, id, 30)).id);
    const tooFar = await ann.device.post(PAYMENTS_API.extensionCheckout, { discussion_id: id, days: 30 });
    expect(tooFar.status).toBe(409);
    expect(tooFar.body).toMatchObject({ error: { code: "extension_too_far" } });
    const stranger = await person(server, "Stu");
    expect((await stranger.device.post(PAYMENTS_API.extensionCheckout, { discussion_id: id, days: 7 })).status).toBe(404);
    expect((await ann.device.post(PAYMENTS_API.extensionCheckout, { discussion_id: id, days: 5 })).status).toBe(400);
    expect(fake.sessions.size).toBe(sessions + 2);
    const anonymous = await fetch(server.url + PAYMENTS_API.premiumCheckout, { method: "POST" });
    expect(anonymous.status).toBe(401);
  });
});

describe("payments off", () => {
  it("says so on the public config, with the donation page, and every payment route is a 404", async () => {
    const off = await startTestServer({ DONATION_URL: "https://example.com/donate" });
    try {
      const config = await fetch(off.url + PAYMENTS_API.config);
      expect(await config.json()).toEqual({ payments: false, donation_url: "https://example.com/donate" });
      const { device } = await person(off, "Off");
      for (const path of [
        PAYMENTS_API.premiumCheckout,
        PAYMENTS_API.extensionCheckout,
        PAYMENTS_API.portal,
        PAYMENTS_API.confirm("cs_1"),
      ]) {
        const res = await device.post(path, {});
        expect(res.status).toBe(404);
        expect(res.body).toMatchObject({ error: { code: "not_found" } });
      }
      const webhook = await fetch(off.url + PAYMENTS_API.webhook, {
        method: "POST",
        headers: { "stripe-signature": "t=1,v1=x" },
        body: "{}",
      });
      expect(webhook.status).toBe(404);
    } finally {
      await off.close();
    }
  });
});
