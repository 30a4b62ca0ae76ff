/**
 * A device that resumes from before a change ends exactly where a device that was live through it is: for every
 * kind of change, the replayed frames equal the live ones while the change's subject has not changed since, and the
 * state both devices build from their frames is the same when it has.
 */
import {
  API,
  type DateMessages,
  DEVICES_API,
  type DevicesResponse,
  DISCUSSIONS_API,
  type DiscussionDetails,
  type LiveEvent,
  type ServerLiveMessage,
} from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdmin } from "../admin.ts";
import { ready } from "../testing/discussion-api.ts";
import { Device, startTestServer, type TestServer, textMessage } from "../testing/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  // The operator's plan command reaches open devices through the sequence check: made short here.
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
    }
  }
  return state;
}

const eventFrames = (received: ServerLiveMessage[]) =>
  received.flatMap((m) => (m.type === "event" ? [{ seq: m.seq, event: m.event }] : []));

async function currentSeq(userId: string): Promise<number> {
  const row = await server.db.selectFrom("users").select("seq").where("id", "=", userId).executeTakeFirstOrThrow();
  return Number(row.seq);
}

let people = 0;
async function person(name: string) {
  const device = new Device(server.url);
  const email = `${name.toLowerCase()}${++people}@resume.example`;
  const user = await device.register(name, email);
  return { device, user, email };
}

/** A user with a device that stays live and a second device that will resume; `other` for another account. */
async function scene() {
  const me = await person("Mia");
  const laptop = new Device(server.url);
  await laptop.login(me.email);
  const other = await person("Oto");
  return { ...me, laptop, other };
}

/**
 * Runs `change` while `live` is connected from the current seq, then resumes `resumer` from that same seq; both
 * frame lists once every change has arrived.
 */
async function liveAndResumed(userId: string, live: Device, resumer: Device, change: () => Promise<void>) {
  const from = await currentSeq(userId);
  const socket = await ready(live, from);
  await change();
  const to = await currentSeq(userId);
  expect(to).toBeGreaterThan(from);
  await socket.waitFor((r) => r.some((m) => m.type === "event" && m.seq === to));
  const resumed = await ready(resumer, from);
  socket.close();
  resumed.close();
  return { live: eventFrames(socket.received), replayed: eventFrames(resumed.received) };
}

async function sendText(device: Device, content: string) {
  const res = await device.post<{ message: { id: string }; day: DateMessages }>(API.messages, textMessage(content, server.clock.now()));
  expect(res.status).toBe(201);
  return res.body;
}

async function deviceIdOf(device: Device): Promise<string> {
  const res = await device.get<DevicesResponse>(DEVICES_API.list);
  return res.body.devices.find((d) => d.current)?.id ?? "";
}

async function discussionOf(owner: Device, title = "Trip") {
  const res = await owner.post<DiscussionDetails>(DISCUSSIONS_API.list, { title, display_name: "Owner" });
  expect(res.status).toBe(201);
  return res.body.discussion;
}

type Scene = Awaited<ReturnType<typeof scene>>;

/** Makes what a change needs (before the resume point), then returns the change itself. */
type Case = [string, (s: Scene) => Promise<() => Promise<unknown>>, LiveEvent["kind"][]];

describe("a device that resumes gets exactly the frames a live device got, for every change kind", () => {
  const cases: Case[] = [
    [
      "message created",
      async ({ device }) =>
        () =>
          sendText(device, "hello"),
      ["message.created"],
    ],
    [
      "message deleted",
      async ({ device }) => {
        const sent = await sendText(device, "soon gone");
        return () => device.request("DELETE", API.message(sent.message.id));
      },
      ["messages.deleted", "day.upserted"],
    ],
    [
      "day cleared",
      async ({ device }) => {
        const sent = await sendText(device, "one");
        await sendText(device, "two");
        return () => device.request("DELETE", API.dayMessages(sent.day.id));
      },
      ["messages.deleted", "day.upserted"],
    ],
    [
      "device signed in",
      async ({ email }) =>
        () =>
          new Device(server.url).login(email),
      ["device.signed_in"],
    ],
    [
      "device renamed",
      async ({ device }) => {
        const id = await deviceIdOf(device);
        return () => device.request("PATCH", DEVICES_API.one(id), { name: "Desk" });
      },
      ["device.renamed"],
    ],
    [
      "device signed out",
      async ({ email, device }) => {
        const tablet = new Device(server.url);
        await tablet.login(email);
        const id = await deviceIdOf(tablet);
        return () => device.request("DELETE", DEVICES_API.one(id));
      },
      ["device.signed_out"],
    ],
    [
      "plan changed",
      async ({ email }) =>
        async () =>
          expect((await runAdmin(["plan", "set", email, "premium"], server.env)).code).toBe(0),
      ["user.updated"],
    ],
    [
      "discussion created",
      async ({ device }) =>
        () =>
          discussionOf(device),
      ["discussion.upserted"],
    ],
    [
      "discussion renamed",
      async ({ device }) => {
        const discussion = await discussionOf(device);
        return () => device.request("PATCH", DISCUSSIONS_API.one(discussion.id), { title: "Trip to Rome" });
      },
      ["discussion.upserted"],
    ],
    [
      "another member joins",
      async ({ device, other }) => {
        const discussion = await discussionOf(device);
        return () => other.device.post(DISCUSSIONS_API.join(discussion.public_id), { display_name: "Guest" });
      },
      ["discussion.upserted"],
    ],
    [
      "a member writes in a discussion",
      async ({ device, other }) => {
        const discussion = await discussionOf(device);
        await other.device.post(DISCUSSIONS_API.join(discussion.public_id), { display_name: "Guest" });
        return () => other.device.post(DISCUSSIONS_API.messages(discussion.id), textMessage("from a guest", server.clock.now()));
      },
      ["discussion.message.created"],
    ],
    [
      "a discussion message deleted",
      async ({ device }) => {
        const discussion = await discussionOf(device);
        const sent = textMessage("in the discussion", server.clock.now());
        await device.post(DISCUSSIONS_API.messages(discussion.id), sent);
        return () => device.request("DELETE", DISCUSSIONS_API.message(discussion.id, sent.id));
      },
      ["discussion.messages.deleted"],
    ],
    [
      "another member leaves",
      async ({ device, other }) => {
        const discussion = await discussionOf(device);
        await other.device.post(DISCUSSIONS_API.join(discussion.public_id), { display_name: "Guest" });
        return () => other.device.post(DISCUSSIONS_API.leave(discussion.id));
      },
      ["discussion.upserted"],
    ],
    [
      "left a discussion",
      async ({ device, other }) => {
        const discussion = await discussionOf(other.device);
        await device.post(DISCUSSIONS_API.join(discussion.public_id), { display_name: "Me" });
        return () => device.post(DISCUSSIONS_API.leave(discussion.id));
      },
      ["discussion.closed"],
    ],
    [
      "removed from a discussion",
      async ({ device, other }) => {
        const discussion = await discussionOf(other.device);
        await device.post(DISCUSSIONS_API.join(discussion.public_id), { display_name: "Me" });
        const members = (await other.device.get<DiscussionDetails>(DISCUSSIONS_API.one(discussion.id))).body.members;
        const mine = members.find((m) => m.display_name === "Me")?.id ?? "";
        return () => other.device.request("DELETE", DISCUSSIONS_API.member(discussion.id, mine));
      },
      ["discussion.closed"],
    ],
    [
      "discussion ended",
      async ({ device }) => {
        const discussion = await discussionOf(device);
        return () => device.request("DELETE", DISCUSSIONS_API.one(discussion.id));
      },
      ["discussion.closed"],
    ],
  ];

  it.each(cases)("%s", async (_name, prepare, kinds) => {
    const s = await scene();
    const change = await prepare(s);
    const frames = await liveAndResumed(s.user.id, s.device, s.laptop, async () => void (await change()));
    expect(frames.live.map((f) => f.event.kind)).toEqual(kinds);
    expect(frames.replayed).toEqual(frames.live);
  });
});

describe("when the subject changed after the change, the state still agrees", () => {
  it("a message created then deleted: the resumer never sees it, and both end on the same day summary", async () => {
    const s = await scene();
    const frames = await liveAndResumed(s.user.id, s.device, s.laptop, async () => {
      const sent = await sendText(s.device, "brief");
      await s.device.request("DELETE", API.message(sent.message.id));
    });
    expect(frames.replayed.map((f) => f.event.kind)).toEqual(["messages.deleted", "day.upserted"]);
    expect(stateOf(frames.replayed)).toEqual(stateOf(frames.live));
  });

  it("a device renamed twice: both end on the second name", async () => {
    const s = await scene();
    const frames = await liveAndResumed(s.user.id, s.device, s.laptop, async () => {
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
