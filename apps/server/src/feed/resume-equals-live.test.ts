/**
 * A device that resumes from before a change ends exactly where a device that was live through it is: for every
 * kind of change, the replayed frames equal the live ones while the change's subject has not changed since. When the
 * subject has changed since, resume-state-agrees.test.ts checks the state both build.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  API,
  DEVICES_API,
  DISCUSSIONS_API,
  type DiscussionDetails,
  type JoinRequestAnswer,
  KEYS_API,
  ROOMS_API,
  type ServerLiveEvent,
} from "@daysync/shared";
import { makeRotation } from "@daysync/shared/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdmin } from "../admin.ts";
import { b64 } from "../testing/key-material.ts";
import { deviceIdOf, discussionOf, keyedAccount, liveAndResumed, type Scene, scene, sendText } from "../testing/live-and-resumed.ts";
import { createRoomThroughApi, currentKeys, entryBody, linkJoinThroughApi, newMemberKey, wrapBody } from "../testing/room-client.ts";
import { Device, startTestServer, type TestServer, textMessage } from "../testing/test-server.ts";
import { allChangeKinds } from "./kinds/index.ts";

let server: TestServer;
beforeAll(async () => {
  // The operator's plan command reaches open devices through the sequence check: made short here.
  server = await startTestServer({ LOGIN_RATE_LIMIT_MAX: "1000", LIVE_SEQ_CHECK_MS: "200" });
});
afterAll(() => server.close());

/** Makes what a change needs (before the resume point), then returns the change itself. */
type Case = [string, (s: Scene) => Promise<() => Promise<unknown>>, ServerLiveEvent["kind"][]];

describe("a device that resumes gets exactly the frames a live device got, for every change kind", () => {
  const cases: Case[] = [
    [
      "message created",
      async ({ device }) =>
        () =>
          sendText(server, device, "hello"),
      ["message.created"],
    ],
    [
      "message deleted",
      async ({ device }) => {
        const sent = await sendText(server, device, "soon gone");
        return () => device.request("DELETE", API.message(sent.message.id));
      },
      ["messages.deleted", "day.upserted"],
    ],
    [
      "day cleared",
      async ({ device }) => {
        const sent = await sendText(server, device, "one");
        await sendText(server, device, "two");
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
    [
      "key epoch created",
      async ({ device }) => {
        const raw = randomBytes(32);
        const keyId = createHash("sha256").update(raw).digest().subarray(0, 16).toString("base64url");
        const publicKey = raw.toString("base64url");
        expect((await device.request("PUT", KEYS_API.device, { public_key: publicKey })).status).toBe(200);
        const sealed = { enc: randomBytes(32).toString("base64url"), ciphertext: randomBytes(48).toString("base64url") };
        const roster = { epoch: 1, key_id: keyId, public_key: publicKey, kind: "device", tag: randomBytes(32).toString("base64url") };
        const wrap = { epoch: 1, recipient_key_id: keyId, mode: "base", ...sealed };
        return () => device.post(KEYS_API.epochs, { epoch: 1, expected: null, reason: "first", wraps: [wrap], roster: [roster] });
      },
      ["key.epoch_created"],
    ],
    [
      "a device holding the key signs itself out",
      async ({ email, laptop }) => {
        const tablet = new Device(server.url);
        await tablet.login(email);
        await keyedAccount(tablet, laptop);
        const id = await deviceIdOf(tablet);
        return () => tablet.request("DELETE", DEVICES_API.one(id));
      },
      ["device.signed_out", "key.rotation_due"],
    ],
    [
      "start over asked, then cancelled",
      async ({ device, laptop }) => {
        await keyedAccount(device, laptop);
        return async () => {
          expect((await laptop.post(KEYS_API.startOver)).status).toBe(200);
          expect((await laptop.request("DELETE", KEYS_API.startOver)).status).toBe(200);
        };
      },
      ["key.start_over_changed", "key.start_over_changed"],
    ],
    [
      "key requested",
      async ({ device, laptop }) => {
        await keyedAccount(device, laptop);
        return () => laptop.post(KEYS_API.requests, { requester_share: b64(32) });
      },
      ["key.requested"],
    ],
    [
      "key request answered",
      async ({ device, laptop }) => {
        await keyedAccount(device, laptop);
        const asked = await laptop.post<{ request: { id: string } }>(KEYS_API.requests, { requester_share: b64(32) });
        return () => device.post(KEYS_API.answer(asked.body.request.id), { approver_share: b64(32), approver_confirmation: b64(32) });
      },
      ["key.request_updated"],
    ],
  ];

  cases.push(
    [
      "someone joins an encrypted discussion with its link",
      async ({ device, other }) => {
        const { res, holding } = await createRoomThroughApi(device, "Me", "Room");
        return () => linkJoinThroughApi(other.device, res.body.public_id, holding, "Guest");
      },
      ["discussion.upserted", "discussion.member_joined"],
    ],
    [
      "a member leaves an encrypted discussion",
      async ({ device, other }) => {
        const { res, holding } = await createRoomThroughApi(device, "Me", "Room");
        await linkJoinThroughApi(other.device, res.body.public_id, holding, "Guest");
        return () => other.device.post(DISCUSSIONS_API.leave(res.body.id));
      },
      ["discussion.upserted", "discussion.member_left"],
    ],
    [
      "an encrypted discussion rotated",
      async ({ device }) => {
        const { res, holding } = await createRoomThroughApi(device, "Me", "Room");
        const { rotation, keep } = await makeRotation(holding, new Map([[holding.self.keyId, "Me"]]));
        await keep();
        const entries = await Promise.all(rotation.roster.map((e) => entryBody(currentKeys(holding), e, "Me")));
        const body = { generation: 2, sender_key_id: holding.self.keyId, entries, wraps: rotation.wraps.map(wrapBody) };
        return () => device.post(ROOMS_API.generations(res.body.id), body);
      },
      ["discussion.rotated"],
    ],
    [
      "someone asks to join by typed ID, and a member answers",
      async ({ device, other }) => {
        const { res, holding } = await createRoomThroughApi(device, "Me", "Room");
        const joiner = await newMemberKey();
        const ask = { name: "Guest", joiner_key_id: joiner.keyId, joiner_public_key: joiner.publicKey, share: b64(32) };
        return async () => {
          const asked = await other.device.post<{ request: JoinRequestAnswer }>(ROOMS_API.requestJoin(res.body.public_id), ask);
          const answer = {
            member_key_id: holding.self.keyId,
            member_public_key: holding.self.publicKey,
            share: b64(32),
            confirmation: b64(32),
          };
          expect((await device.post(ROOMS_API.answer(res.body.id, asked.body.request.id), answer)).status).toBe(200);
        };
      },
      ["discussion.join_requested", "discussion.join_updated"],
    ],
  );

  it("covers every kind of change there is", () => {
    const covered = new Set(cases.flatMap(([, , kinds]) => kinds));
    expect(allChangeKinds.filter((kind) => !covered.has(kind))).toEqual([]);
  });

  it.each(cases)("%s", async (_name, prepare, kinds) => {
    const s = await scene(server);
    const change = await prepare(s);
    const frames = await liveAndResumed(server, s.user.id, s.device, s.laptop, async () => void (await change()));
    expect(frames.live.map((f) => f.event.kind)).toEqual(kinds);
    expect(frames.replayed).toEqual(frames.live);
  });
});
