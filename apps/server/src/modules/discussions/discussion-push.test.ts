import { DISCUSSIONS_API, type DiscussionMessage, pushPayloadSchema, type User } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aliceBobAndCarol } from "../../testing/discussion-api.ts";
import { decryptPush, newSubscriptionKeys, type PushServiceDouble, startPushServiceDouble } from "../../testing/push-service-double.ts";
import { Device, startTestServer, type TestServer } from "../../testing/test-server.ts";

type Fixture = Awaited<ReturnType<typeof aliceBobAndCarol>>;
let server: TestServer;
let pushService: PushServiceDouble;
let alice: Device;
let bob: Device;
let aliceUser: User;
let aliceAndBob: Fixture["aliceAndBob"];
let say: Fixture["say"];

beforeAll(async () => {
  server = await startTestServer();
  pushService = await startPushServiceDouble();
  ({ alice, aliceUser, bob, aliceAndBob, say } = await aliceBobAndCarol(server));
});
afterAll(async () => {
  await pushService.close();
  await server.close();
});

describe("web push", () => {
  it("notifies the other members' devices, never the author's, with the discussion's title and the author's display name", async () => {
    const d = await aliceAndBob();
    const subscribe = async (device: Device, endpointPath: string) => {
      const keys = newSubscriptionKeys();
      const res = await device.post("/api/push/subscriptions", {
        endpoint: `${pushService.url}${endpointPath}`,
        expirationTime: null,
        keys: keys.json,
      });
      expect(res.status).toBe(201);
      return keys;
    };
    const alicePhone = new Device(server.url);
    await alicePhone.login(aliceUser.email);
    await subscribe(alicePhone, "/push/alice-phone");
    const bobKeys = await subscribe(bob, "/push/bob");
    const before = pushService.received.length;

    const sent = await alice.post<{ message: DiscussionMessage }>(DISCUSSIONS_API.messages(d.id), say("dinner at eight?"));
    await pushService.waitFor(before + 1);
    await new Promise((r) => setTimeout(r, 200));
    const pushes = pushService.received.slice(before);
    expect(pushes.map((p) => p.path)).toEqual(["/push/bob"]);
    const push = pushes[0];
    if (!push) throw new Error("no push");
    const payload = pushPayloadSchema.parse(JSON.parse(decryptPush(push.body, bobKeys).toString("utf8")));
    expect(payload).toEqual({
      kind: "message.created",
      title: d.title,
      body: "Ally: dinner at eight?",
      day_id: d.id,
      discussion_id: d.id,
      message_id: sent.body.message.id,
      url: `/discussions/${d.id}`,
    });
    const raw = decryptPush(push.body, bobKeys).toString("utf8");
    for (const secret of [aliceUser.email, aliceUser.id]) expect(raw).not.toContain(secret);

    // Deleted: the notification closes on the other members' devices and the author's other ones.
    const beforeDelete = pushService.received.length;
    await alice.request("DELETE", DISCUSSIONS_API.message(d.id, sent.body.message.id));
    await pushService.waitFor(beforeDelete + 2);
    const closing = pushService.received.slice(beforeDelete);
    expect(closing.map((p) => p.path).sort()).toEqual(["/push/alice-phone", "/push/bob"]);
    const closed = closing.find((p) => p.path === "/push/bob");
    if (!closed) throw new Error("no push");
    expect(JSON.parse(decryptPush(closed.body, bobKeys).toString("utf8"))).toEqual({
      kind: "messages.deleted",
      message_ids: [sent.body.message.id],
      day_ids: [],
    });
  });
});
