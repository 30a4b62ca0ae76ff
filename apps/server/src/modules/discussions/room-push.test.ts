/** A push for an encrypted discussion's message carries only its sealed preview: no title, name or text in clear. */
import { DISCUSSIONS_API, type DiscussionMessage, pushPayloadSchema } from "@daysync/shared";
import { openRoomValue, roomSender, sealRoomText } from "@daysync/shared/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { person } from "../../testing/discussion-api.ts";
import { decryptPush, newSubscriptionKeys, type PushServiceDouble, startPushServiceDouble } from "../../testing/push-service-double.ts";
import { createRoomThroughApi, currentKeys, linkJoinThroughApi } from "../../testing/room-client.ts";
import { startTestServer, type TestServer, textMessage } from "../../testing/test-server.ts";

let server: TestServer;
let pushService: PushServiceDouble;
beforeAll(async () => {
  server = await startTestServer();
  pushService = await startPushServiceDouble();
});
afterAll(async () => {
  await pushService.close();
  await server.close();
});

describe("web push in an encrypted discussion", () => {
  it("sends the other members the sealed preview only, which a member's device opens", async () => {
    const ana = await person(server, "Ana");
    const bo = await person(server, "Bo");
    const { res, holding } = await createRoomThroughApi(ana.device, "Anaqzx", "Qzx title");
    const joined = await linkJoinThroughApi(bo.device, res.body.public_id, holding, "Boqzx");
    const keys = newSubscriptionKeys();
    const subscribed = await bo.device.post("/api/push/subscriptions", {
      endpoint: `${pushService.url}/push/bo`,
      expirationTime: null,
      keys: keys.json,
    });
    expect(subscribed.status).toBe(201);
    const before = pushService.received.length;

    const sender = roomSender(holding, 1);
    const sealed = await sealRoomText(sender, textMessage("Qzx dinner at eight?", server.clock.now()));
    const sent = await ana.device.post<{ message: DiscussionMessage }>(DISCUSSIONS_API.messages(res.body.id), {
      ...sealed,
      sender_key_id: sender.memberKeyId,
    });
    expect(sent.status).toBe(201);
    await pushService.waitFor(before + 1);
    const push = pushService.received[before];
    if (!push) throw new Error("no push");
    const raw = decryptPush(push.body, keys).toString("utf8");
    for (const clear of ["Qzx", "Anaqzx", "dinner"]) expect(raw).not.toContain(clear);
    const payload = pushPayloadSchema.parse(JSON.parse(raw));
    expect(payload).toEqual({
      kind: "message.created",
      title: "",
      body: "",
      day_id: res.body.id,
      discussion_id: res.body.id,
      message_id: sealed.id,
      url: `/discussions/${res.body.id}`,
      room: {
        generation: 1,
        sender_key_id: sender.memberKeyId,
        preview: sealed.preview,
        type: "text",
        date: sealed.date,
        time: sealed.time,
      },
    });
    const bo1 = currentKeys(joined.holding ?? holding);
    const place = {
      field: "preview",
      messageId: sealed.id,
      type: "text",
      date: sealed.date,
      time: sealed.time,
      senderKeyId: sender.memberKeyId,
    } as const;
    expect(await openRoomValue(bo1, place, payload.kind === "message.created" ? (payload.room?.preview ?? "") : "")).toBe(
      "Qzx dinner at eight?",
    );
  });
});
