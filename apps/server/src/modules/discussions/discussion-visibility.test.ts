/** Who learns nothing of a discussion (non-members, visitors, other members' secrets) and who is told what, live. */
import { randomUUID } from "node:crypto";
import { DISCUSSIONS_API, type DiscussionDetails } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createThroughApi as create,
  discussionEvents,
  join,
  NO_SUCH_DISCUSSION as NOT_FOUND,
  readySeq,
  person as signedIn,
} from "../../testing/discussion-api.ts";
import { Device, startTestServer, type TestServer } from "../../testing/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const person = (name: string) => signedIn(server, name);

describe("who learns nothing", () => {
  it("gives a non-member the same 404 on every route, and a visitor 401", async () => {
    const { device: owner } = await person("Ann");
    const { discussion, members } = await create(owner);
    const { device: stranger } = await person("Sam");
    const visitor = new Device(server.url);
    const routes: Array<[string, string, unknown?]> = [
      ["GET", DISCUSSIONS_API.one(discussion.id)],
      ["PATCH", DISCUSSIONS_API.one(discussion.id), { title: "x" }],
      ["DELETE", DISCUSSIONS_API.one(discussion.id)],
      ["POST", DISCUSSIONS_API.leave(discussion.id)],
      ["DELETE", DISCUSSIONS_API.member(discussion.id, members[0]?.id ?? "")],
      ["POST", DISCUSSIONS_API.extend(discussion.id), { days: 7 }],
      ["POST", DISCUSSIONS_API.read(discussion.id)],
    ];
    const unknownId = randomUUID();
    for (const [method, path, body] of routes) {
      const res = await stranger.request(method, path, body);
      expect([method, path, res.status, res.body]).toEqual([method, path, 404, NOT_FOUND]);
      const unknown = await stranger.request(method, path.replace(discussion.id, unknownId), body);
      expect(unknown.body).toEqual(NOT_FOUND);
      expect((await visitor.request(method, path, body)).status).toBe(401);
    }
    expect((await visitor.post(DISCUSSIONS_API.join(discussion.public_id), { display_name: "V" })).status).toBe(401);
    expect((await owner.get<DiscussionDetails>(DISCUSSIONS_API.one(discussion.id))).body.discussion.title).toBe("Trip");
  });

  it("never sends a member another member's email or user id, over HTTP or live", async () => {
    const ann = await person("Ann");
    const bob = await person("Bob");
    const annLive = await ann.device.live();
    await annLive.waitFor((r) => readySeq(r) !== undefined);
    const { discussion } = await create(ann.device, "Privacy");
    const joined = await join(bob.device, discussion.public_id, "B");
    await annLive.waitFor((r) => discussionEvents(r).some((e) => e.kind === "discussion.upserted" && e.members.length === 2));
    const seen = JSON.stringify([
      joined.body,
      (await ann.device.get(DISCUSSIONS_API.one(discussion.id))).body,
      (await ann.device.get(DISCUSSIONS_API.list)).body,
      annLive.received,
    ]);
    for (const secret of [bob.user.id, bob.email, "Bob"]) expect(seen).not.toContain(secret);
    annLive.close();
  });
});

describe("live events", () => {
  it("tells every member of joins, renames and leaves, and the one who leaves or is removed that it closed; replays them after a reconnect", async () => {
    const ann = await person("Ann");
    const bob = await person("Bob");
    const cat = await person("Cat");
    const annLive = await ann.device.live();
    const bobLive = await bob.device.live();
    for (const l of [annLive, bobLive]) await l.waitFor((r) => readySeq(r) !== undefined);
    const annReady = readySeq(annLive.received) ?? 0;

    const { discussion } = await create(ann.device, "Live");
    await annLive.waitFor((r) => discussionEvents(r).length === 1);
    expect(discussionEvents(annLive.received)[0]).toMatchObject({
      kind: "discussion.upserted",
      discussion: { id: discussion.id, title: "Live" },
    });

    await join(bob.device, discussion.public_id, "Bob");
    const catJoined = (await join(cat.device, discussion.public_id, "Cat")).body;
    await bob.device.request("PATCH", DISCUSSIONS_API.one(discussion.id), { title: "nope" });
    await ann.device.request("PATCH", DISCUSSIONS_API.one(discussion.id), { title: "Renamed" });
    await bob.device.post(DISCUSSIONS_API.leave(discussion.id));
    await ann.device.request("DELETE", DISCUSSIONS_API.member(discussion.id, catJoined.discussion.member_id));

    const summary = (events: ReturnType<typeof discussionEvents>) =>
      events.map((e) =>
        e.kind === "discussion.upserted"
          ? `upserted ${e.discussion.title} ${e.members
              .map((m) => m.display_name)
              .sort()
              .join(",")}`
          : e.kind === "discussion.closed"
            ? `closed ${e.id === discussion.id ? "it" : e.id} ${e.reason}`
            : e.kind,
      );
    const annExpected = [
      "upserted Live Ann",
      "upserted Live Ann,Bob",
      "upserted Live Ann,Bob,Cat",
      "upserted Renamed Ann,Bob,Cat",
      "upserted Renamed Ann,Cat",
      "upserted Renamed Ann",
    ];
    const bobExpected = ["upserted Live Ann,Bob", "upserted Live Ann,Bob,Cat", "upserted Renamed Ann,Bob,Cat", "closed it left"];
    await annLive.waitFor((r) => discussionEvents(r).length === annExpected.length);
    await bobLive.waitFor((r) => discussionEvents(r).length === bobExpected.length);
    expect(summary(discussionEvents(annLive.received))).toEqual(annExpected);
    expect(summary(discussionEvents(bobLive.received))).toEqual(bobExpected);

    // Replayed from the log: rendered as it is now for a member, and the close kept though the space is gone.
    await ann.device.request("DELETE", DISCUSSIONS_API.one(discussion.id));
    await annLive.waitFor((r) => discussionEvents(r).length === annExpected.length + 1);
    expect(summary(discussionEvents(annLive.received)).at(-1)).toBe("closed it ended");
    annLive.close();
    const annAgain = await ann.device.live(annReady);
    await annAgain.waitFor((r) => readySeq(r) !== undefined);
    // The discussion is gone: its upserts replay as nothing, its end as it was.
    expect(summary(discussionEvents(annAgain.received))).toEqual(["closed it ended"]);

    const catAgain = await cat.device.live();
    await catAgain.waitFor((r) => readySeq(r) !== undefined);
    expect(summary(discussionEvents(catAgain.received))).toEqual(["closed it removed"]);
    bobLive.close();
    annAgain.close();
    catAgain.close();
  });

  it("replays a discussion's upserts as it is now to a member who was away", async () => {
    const ann = await person("Ann");
    const bob = await person("Bob");
    const bobLive = await bob.device.live();
    await bobLive.waitFor((r) => readySeq(r) !== undefined);
    const since = readySeq(bobLive.received) ?? 0;
    bobLive.close();
    const { discussion } = await create(ann.device, "First");
    await join(bob.device, discussion.public_id, "Bob");
    await ann.device.request("PATCH", DISCUSSIONS_API.one(discussion.id), { title: "Second" });
    const again = await bob.device.live(since);
    await again.waitFor((r) => readySeq(r) !== undefined);
    const events = discussionEvents(again.received);
    expect(events.map((e) => e.kind === "discussion.upserted" && e.discussion.title)).toEqual(["Second", "Second"]);
    again.close();
  });
});
