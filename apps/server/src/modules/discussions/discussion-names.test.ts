/**
 * No member passes for another (issue 24): a display name equal to another active member's in the same discussion,
 * the creator's included, is refused whatever its case, spacing, width or invisible characters, on joining and on
 * joining again under a new name. A name frees up when its member leaves or is removed.
 */
import { DISCUSSIONS_API, type DiscussionDetails } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createThroughApi as create, join, person as signedIn } from "../../testing/discussion-api.ts";
import { startTestServer, type TestServer } from "../../testing/test-server.ts";

const TAKEN = {
  error: {
    code: "display_name_taken",
    message: "Someone in this discussion already goes by this name: choose another one.",
    field: "display_name",
  },
};

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ DISCUSSION_JOIN_RATE_LIMIT_MAX: "100", DISCUSSION_JOIN_ADDRESS_RATE_LIMIT_MAX: "100" });
});
afterAll(() => server.close());

const person = (name: string) => signedIn(server, name);
/** The members' names, sorted (members who join at the same clock time come in no set order). */
const names = async (details: Promise<{ body: DiscussionDetails }>) => (await details).body.members.map((m) => m.display_name).sort();

describe("display names in a discussion", () => {
  it("refuses to join under the creator's name or another member's, whatever the case, spaces, width or invisible characters", async () => {
    const { device: owner } = await person("Ann");
    const { discussion } = await create(owner, "Trip", "Ann Lee");
    const { device: bob } = await person("Bob");
    for (const lookalike of ["Ann Lee", "ann lee", "  ANN   LEE ", "AnnLee", "Ann\u00a0Lee", "\uff21nn Lee", "Ann\u200bLee"]) {
      const res = await join(bob, discussion.public_id, lookalike);
      expect([res.status, res.body], JSON.stringify(lookalike)).toEqual([409, TAKEN]);
    }
    // A control character is refused before any comparison (issue 42, point 6).
    expect((await join(bob, discussion.public_id, "ann\tlee")).status).toBe(400);
    expect((await join(bob, discussion.public_id, "Bob")).status).toBe(201);

    const { device: cat } = await person("Cat");
    expect((await join(cat, discussion.public_id, "bob")).body).toEqual(TAKEN);
    expect((await join(cat, discussion.public_id, "\uff42\uff4f\uff42")).body).toEqual(TAKEN);
    expect((await join(cat, discussion.public_id, "Bobby")).status).toBe(201);
    expect(await names(owner.get<DiscussionDetails>(DISCUSSIONS_API.one(discussion.id)))).toEqual(["Ann Lee", "Bob", "Bobby"]);
  });

  it("checks a changed name on joining again, and frees the name of a member who left or was removed", async () => {
    const { device: owner } = await person("Ann");
    const { discussion } = await create(owner, "Plans", "Ann");
    const { device: bob } = await person("Bob");
    expect((await join(bob, discussion.public_id, "Bob")).status).toBe(201);
    expect((await bob.post(DISCUSSIONS_API.leave(discussion.id))).status).toBe(204);

    // Bob's name is free once he has left: Cat takes it.
    const { device: cat } = await person("Cat");
    const catJoined = await join(cat, discussion.public_id, "BOB");
    expect(catJoined.status).toBe(201);

    // Bob comes back: neither his old name, now Cat's, nor the creator's.
    for (const taken of ["Bob", "ann"]) {
      const again = await join(bob, discussion.public_id, taken);
      expect([again.status, again.body], taken).toEqual([409, TAKEN]);
    }
    expect((await join(bob, discussion.public_id, "Robert")).status).toBe(201);

    // Removed, Cat's name is free again.
    const removed = await owner.request("DELETE", DISCUSSIONS_API.member(discussion.id, catJoined.body.discussion.member_id));
    expect(removed.status).toBe(200);
    const { device: dan } = await person("Dan");
    expect((await join(dan, discussion.public_id, "bob")).status).toBe(201);
    expect(await names(owner.get<DiscussionDetails>(DISCUSSIONS_API.one(discussion.id)))).toEqual(["Ann", "Robert", "bob"]);
  });
});
