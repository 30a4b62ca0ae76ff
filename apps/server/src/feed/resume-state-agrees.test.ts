/**
 * A device that resumes from before a change whose subject changed again since ends on the same state as a device
 * that was live through both: the replayed frames may differ from the live ones (resume-equals-live.test.ts covers
 * those that must not), the state a client builds from them does not.
 */
import { API, DEVICES_API, KEY_REQUEST_LIFETIME_MS, KEYS_API, type LiveEvent } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ready } from "../testing/discussion-api.ts";
import { b64 } from "../testing/key-material.ts";
import { currentSeq, deviceIdOf, eventFrames, keyedAccount, liveAndResumed, scene, sendText } from "../testing/live-and-resumed.ts";
import { Device, startTestServer, type TestServer } from "../testing/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  // The same server as resume-equals-live.test.ts's, so both speak of the same conditions.
  server = await startTestServer({ LOGIN_RATE_LIMIT_MAX: "1000", LIVE_SEQ_CHECK_MS: "200" });
});
afterAll(() => server.close());

/** What a client keeps from the events it applies, as the web app's caches do. */
function stateOf(frames: Array<{ seq: number; event: LiveEvent }>) {
  const state = {
    days: {} as Record<string, unknown>,
    messages: {} as Record<string, unknown>,
    user: undefined as unknown,
    devices: {} as Record<string, { name: string } & Record<string, unknown>>,
    signedOut: [] as string[],
    discussions: {} as Record<string, unknown>,
    closed: {} as Record<string, string>,
    discussionMessages: {} as Record<string, unknown>,
    keyEpoch: undefined as number | undefined,
    keyRequests: {} as Record<string, unknown>,
  };
  for (const { event } of frames) {
    switch (event.kind) {
      case "day.upserted":
        state.days[event.day.id] = event.day;
        break;
      case "message.created":
        state.messages[event.message.id] = event.message;
        state.days[event.day.id] = event.day;
        break;
      case "messages.deleted":
        for (const id of event.ids) delete state.messages[id];
        break;
      case "user.updated":
        state.user = event.user;
        break;
      case "device.signed_in":
        state.devices[event.device.id] = event.device;
        break;
      case "device.signed_out":
        delete state.devices[event.id];
        state.signedOut.push(event.id);
        break;
      case "device.renamed": {
        const device = state.devices[event.id];
        if (device) device.name = event.name;
        break;
      }
      case "discussion.upserted":
        state.discussions[event.discussion.id] = { discussion: event.discussion, members: event.members };
        delete state.closed[event.discussion.id];
        break;
      case "discussion.closed":
        delete state.discussions[event.id];
        state.closed[event.id] = event.reason;
        break;
      case "discussion.message.created": {
        state.discussionMessages[event.message.id] = event.message;
        const known = state.discussions[event.discussion.id] as { members: unknown } | undefined;
        state.discussions[event.discussion.id] = { discussion: event.discussion, members: known?.members };
        break;
      }
      case "discussion.messages.deleted":
        for (const id of event.ids) delete state.discussionMessages[id];
        break;
      case "key.epoch_created":
        state.keyEpoch = event.epoch;
        break;
      case "key.requested":
      case "key.request_updated":
        state.keyRequests[event.request.id] = event.request;
        break;
    }
  }
  return state;
}

describe("when the subject changed after the change, the state still agrees", () => {
  it("a message created then deleted: the resumer never sees it, and both end on the same day summary", async () => {
    const s = await scene(server);
    const frames = await liveAndResumed(server, s.user.id, s.device, s.laptop, async () => {
      const sent = await sendText(server, s.device, "brief");
      await s.device.request("DELETE", API.message(sent.message.id));
    });
    expect(frames.replayed.map((f) => f.event.kind)).toEqual(["messages.deleted", "day.upserted"]);
    expect(stateOf(frames.replayed)).toEqual(stateOf(frames.live));
  });

  it("a key request answered after it was made: both end on the answered request", async () => {
    const s = await scene(server);
    await keyedAccount(s.device, s.laptop);
    const frames = await liveAndResumed(server, s.user.id, s.device, s.laptop, async () => {
      const asked = await s.laptop.post<{ request: { id: string } }>(KEYS_API.requests, { requester_share: b64(32) });
      expect(
        (await s.device.post(KEYS_API.answer(asked.body.request.id), { approver_share: b64(32), approver_confirmation: b64(32) })).status,
      ).toBe(200);
    });
    const live = stateOf(frames.live);
    expect(Object.values(live.keyRequests)).toEqual([expect.objectContaining({ status: "answered" })]);
    expect(stateOf(frames.replayed)).toEqual(live);
  });

  it("an expired key request is not replayed", async () => {
    const s = await scene(server);
    await keyedAccount(s.device, s.laptop);
    const from = await currentSeq(server, s.user.id);
    expect((await s.laptop.post(KEYS_API.requests, { requester_share: b64(32) })).status).toBe(201);
    server.clock.advance(KEY_REQUEST_LIFETIME_MS);
    const resumed = await ready(s.laptop, from);
    resumed.close();
    expect(eventFrames(resumed.received)).toEqual([]);
  });

  it("a device renamed twice: both end on the second name", async () => {
    const s = await scene(server);
    const frames = await liveAndResumed(server, s.user.id, s.device, s.laptop, async () => {
      const tablet = new Device(server.url);
      await tablet.login(s.email);
      const id = await deviceIdOf(tablet);
      await s.device.request("PATCH", DEVICES_API.one(id), { name: "First" });
      await s.device.request("PATCH", DEVICES_API.one(id), { name: "Second" });
    });
    const live = stateOf(frames.live);
    expect(Object.values(live.devices).map((d) => d.name)).toEqual(["Second"]);
    expect(stateOf(frames.replayed)).toEqual(live);
  });
});
