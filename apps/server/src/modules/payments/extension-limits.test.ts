/**
 * Issue 42, point 10: a paid extension is checked again when its payment is applied, against the Stripe fake
 * (testing/stripe-fake.ts). Checkouts opened before any is paid each passed the 90-day check alone: together they
 * must not carry the end past 90 days ahead. A member removed after opening a checkout extends nothing by paying.
 * What was paid and not applied is logged for a refund (there is no refund flow).
 */
import { DAY_MS, DISCUSSION_MAX_AHEAD_DAYS, DISCUSSIONS_API, type DiscussionDetails, PAYMENTS_API } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createThroughApi, join, person } from "../../testing/discussion-api.ts";
import { LOG_LEVEL, LogCapture } from "../../testing/log-capture.ts";
import { StripeFake } from "../../testing/stripe-fake.ts";
import { type Device, startTestServer, TestClock, type TestServer } from "../../testing/test-server.ts";

let fake: StripeFake;
let server: TestServer;
const log = new LogCapture();
const clock = new TestClock();

beforeAll(async () => {
  fake = await StripeFake.start(() => Math.floor(clock.now() / 1000));
  server = await startTestServer({ ...fake.env(), LOG_LEVEL: "warn" }, { clock, logStream: log });
  fake.webhookUrl = server.url + PAYMENTS_API.webhook;
});
afterAll(async () => {
  await server?.close();
  await fake?.close();
});

const endsAt = async (device: Device, id: string) => (await device.get<DiscussionDetails>(DISCUSSIONS_API.one(id))).body.discussion.ends_at;

async function extensionCheckout(device: Device, id: string, days: 7 | 30) {
  const res = await device.post<{ url: string }>(PAYMENTS_API.extensionCheckout, { discussion_id: id, days });
  expect(res.status).toBe(200);
  return fake.lastSession();
}

const refundLines = (session: string) =>
  log.atLeast(LOG_LEVEL.warn).filter((line) => line.msg?.includes("refund the excess") && line.session === session);

describe("a paid extension, as its payment is applied", () => {
  it("three 30-day checkouts opened before any is paid end it at most 90 days ahead, the excess logged", async () => {
    const ann = await person(server, "Ann");
    const { discussion } = await createThroughApi(ann.device, "Trip", "Ann");
    const start = await endsAt(ann.device, discussion.id);
    const sessions = [];
    for (let i = 0; i < 3; i++) sessions.push(await extensionCheckout(ann.device, discussion.id, 30));
    for (const session of sessions) expect((await fake.pay(session.id))?.status).toBe(200);

    const cap = clock.now() + DISCUSSION_MAX_AHEAD_DAYS * DAY_MS;
    expect(start + 90 * DAY_MS).toBeGreaterThan(cap);
    expect(await endsAt(ann.device, discussion.id)).toBe(cap);
    const last = sessions[2]?.id ?? "";
    expect(refundLines(last)).toEqual([
      expect.objectContaining({ paid_days: 30, excess_ms: start + 90 * DAY_MS - cap, reason: "past_the_limit" }),
    ]);
  });

  it("a member removed after opening a checkout extends nothing by paying, and the payment is logged for a refund", async () => {
    const ann = await person(server, "Ada");
    const bob = await person(server, "Ben");
    const { discussion } = await createThroughApi(ann.device, "Trip", "Ada");
    expect((await join(bob.device, discussion.public_id, "Ben")).status).toBe(201);
    const session = await extensionCheckout(bob.device, discussion.id, 7);
    const members = (await ann.device.get<DiscussionDetails>(DISCUSSIONS_API.one(discussion.id))).body.members;
    const bobMember = members.find((m) => m.display_name === "Ben")?.id ?? "";
    expect((await ann.device.request("DELETE", DISCUSSIONS_API.member(discussion.id, bobMember))).status).toBe(200);
    const before = await endsAt(ann.device, discussion.id);

    expect((await fake.pay(session.id))?.status).toBe(200);
    expect(await endsAt(ann.device, discussion.id)).toBe(before);
    expect(refundLines(session.id)).toEqual([expect.objectContaining({ paid_days: 7, excess_ms: 7 * DAY_MS, reason: "not_a_member" })]);
  });
});
