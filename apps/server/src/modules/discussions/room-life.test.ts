/**
 * An encrypted discussion's membership over time (issue 45): a removal is told to the remaining members with the key
 * that went, a link of a retired generation no longer lets anyone in, and once the discussion has ended nothing of it
 * is served, to members or to a joiner by ID, and the sweep deletes its rows.
 */
import {
  DISCUSSION_LIFETIME_MS,
  DISCUSSIONS_API,
  type DiscussionDetails,
  type JoinRequestAnswer,
  ROOMS_API,
  type RoomState,
  SETTINGS_API,
  type ServerFrame,
} from "@daysync/shared";
import { makeRotation } from "@daysync/shared/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NO_SUCH_DISCUSSION, person, ready } from "../../testing/discussion-api.ts";
import { tablesNaming } from "../../testing/every-row.ts";
import { createRoomThroughApi, currentKeys, entryBody, linkJoinThroughApi, newMemberKey, wrapBody } from "../../testing/room-client.ts";
import { startTestServer, type TestServer } from "../../testing/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ DISCUSSION_JOIN_RATE_LIMIT_MAX: "100", DISCUSSION_JOIN_ADDRESS_RATE_LIMIT_MAX: "100" });
});
afterAll(() => server.close());

const kinds = (received: unknown[]) => (received as ServerFrame[]).flatMap((m) => (m.type === "event" ? [m.event] : []));

describe("an encrypted discussion's members over time", () => {
  it("tells the others which key a removed member had; an old link then lets no one in; after its end nothing is served", async () => {
    const ana = await person(server, "Ana");
    const bo = await person(server, "Bo");
    const cleo = await person(server, "Cleo");
    const { res, holding } = await createRoomThroughApi(ana.device, "Ana", "Life");
    const { id, public_id } = res.body;
    const bos = await linkJoinThroughApi(bo.device, public_id, holding, "Bo");
    const boKey = bos.holding?.self.keyId;

    // Removed by the creator: Ana's devices hear which key went.
    const anaLive = await ready(ana.device);
    const details = (await ana.device.get<DiscussionDetails>(DISCUSSIONS_API.one(id))).body;
    const boMember = details.members.find((m) => m.role === "member")?.id ?? "";
    expect((await ana.device.request("DELETE", DISCUSSIONS_API.member(id, boMember))).status).toBe(200);
    await anaLive.waitFor((r) => kinds(r).some((e) => e.kind === "discussion.member_left"));
    expect(kinds(anaLive.received).find((e) => e.kind === "discussion.member_left")).toEqual({
      kind: "discussion.member_left",
      discussion_id: id,
      member_id: boMember,
      key_ids: [boKey],
    });
    expect((await bo.device.get(ROOMS_API.state(id))).body).toEqual(NO_SUCH_DISCUSSION);

    // Ana rotates; the generation-1 link Bo saw lets no one in any more.
    const { rotation, keep } = await makeRotation(holding, new Map([[holding.self.keyId, "Ana"]]));
    await keep();
    const entries = await Promise.all(rotation.roster.map((e) => entryBody(currentKeys(holding), e, "Ana")));
    const rotated = await ana.device.post(ROOMS_API.generations(id), {
      generation: 2,
      sender_key_id: holding.self.keyId,
      entries,
      wraps: rotation.wraps.map(wrapBody),
    });
    expect(rotated.status).toBe(201);
    const oldLink = { ...holding, highest: 1 };
    const refused = await linkJoinThroughApi(cleo.device, public_id, oldLink, "Cleo");
    expect([refused.res.status, (refused.res.body as unknown as { error: { code: string } }).error.code]).toEqual([
      409,
      "generation_not_current",
    ]);
    expect((await linkJoinThroughApi(cleo.device, public_id, holding, "Cleo")).res.status).toBe(201);

    // A request by typed ID, then the end: nothing is served to anyone.
    const dee = await person(server, "Dee");
    const key = await newMemberKey();
    const ask = { name: "Dee", joiner_key_id: key.keyId, joiner_public_key: key.publicKey, share: "c2hhcmU" };
    const asked = await dee.device.post<{ request: JoinRequestAnswer }>(ROOMS_API.requestJoin(public_id), ask);
    expect(asked.status).toBe(201);
    server.clock.advance(DISCUSSION_LIFETIME_MS);
    expect((await ana.device.get(ROOMS_API.state(id))).body).toEqual(NO_SUCH_DISCUSSION);
    expect((await cleo.device.get(ROOMS_API.requests(id))).body).toEqual(NO_SUCH_DISCUSSION);
    expect((await ana.device.get(DISCUSSIONS_API.messages(id))).status).toBe(404);
    expect((await dee.device.get(ROOMS_API.lookup(public_id))).body).toEqual(NO_SUCH_DISCUSSION);
    expect((await dee.device.get(ROOMS_API.ownRequest(asked.body.request.id))).status).toBe(404);
    expect((await dee.device.post(ROOMS_API.confirm(asked.body.request.id), { confirmation: "Y29uZmlybQ" })).status).toBe(404);

    // The sweep deletes the room's rows with its space.
    expect((await server.sweeper.sweep()).closedDiscussions).toBeGreaterThanOrEqual(1);
    for (const table of ["rooms", "room_generations", "room_entries", "room_wraps", "room_join_requests", "room_own"] as const) {
      const left = await server.db.selectFrom(table).select("space_id").where("space_id", "=", id).execute();
      expect(left, table).toEqual([]);
    }
  });

  it("tells the others which keys went when a member deletes their account", async () => {
    const ana = await person(server, "Ana");
    const bo = await person(server, "Bo");
    const { res, holding } = await createRoomThroughApi(ana.device, "Ana", "Gone");
    const joined = await linkJoinThroughApi(bo.device, res.body.public_id, holding, "Bo");
    const anaLive = await ready(ana.device);
    const deleted = await bo.device.request("DELETE", SETTINGS_API.account, { email: bo.email, password: "correct horse" });
    expect(deleted.status).toBeLessThan(300);
    await anaLive.waitFor((r) => kinds(r).some((e) => e.kind === "discussion.member_left"));
    expect(kinds(anaLive.received).find((e) => e.kind === "discussion.member_left")).toMatchObject({
      key_ids: [joined.holding?.self.keyId],
    });
    // Bo's entry stays, so that the list still verifies, but no row names Bo's account any more.
    const state = (await ana.device.get<RoomState>(ROOMS_API.state(res.body.id))).body;
    expect(state.generations[0]?.entries.find((e) => e.key_id === joined.holding?.self.keyId)).toMatchObject({ left: true });
    expect(await tablesNaming(server, [bo.user.id])).toEqual([]);
  });
});
