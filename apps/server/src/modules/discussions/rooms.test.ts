/**
 * An encrypted discussion run through the server by the shared crypto core (issue 45; docs/protocol/encryption.md,
 * "Encrypted discussions"): created, joined by link and by typed ID (the real CPace exchange, relayed and told live),
 * a sealed text, a leave told live and a rotation (a loser and a skip refused), a stale generation refused; the
 * database then holds none of the clear texts, title or names.
 */
import {
  DISCUSSIONS_API,
  type JoinRequestAnswer,
  ROOMS_API,
  type RoomState,
  type SendRoomMessageInput,
  type ServerFrame,
} from "@daysync/shared";
import {
  acceptAdmission,
  acceptRotation,
  admit,
  answerBody,
  answerJoin,
  checkAnswer,
  hold,
  joinAnswerOf,
  makeRotation,
  openRoomMessage,
  type RoomHolding,
  requestOf,
  roomSender,
  sawLeave,
  sealRoomText,
  startJoin,
} from "@daysync/shared/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NO_SUCH_DISCUSSION, person, ready } from "../../testing/discussion-api.ts";
import { everyRow } from "../../testing/every-row.ts";
import {
  createRoomThroughApi,
  currentKeys,
  entriesAt,
  entryBody,
  linkJoinThroughApi,
  newMemberKey,
  ownValue,
  roomKeyAt,
  sealName,
  wrapBody,
  wrapOf,
} from "../../testing/room-client.ts";
import { type Device, startTestServer, type TestServer, textMessage } from "../../testing/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ DISCUSSION_JOIN_RATE_LIMIT_MAX: "100", DISCUSSION_JOIN_ADDRESS_RATE_LIMIT_MAX: "100" });
});
afterAll(() => server.close());

const TITLE = "Qzxtitle summit plans";
const NAMES = { ana: "Anaqzx", bo: "Boqzx", cleo: "Cleoqzx", dee: "Deeqzx" };
const TEXTS = ["Qzxtext one before the leave", "Qzxtext two after the rotation"];

const roomEvents = (received: unknown[]) =>
  (received as ServerFrame[]).flatMap((m) => (m.type === "event" && m.event.kind.startsWith("discussion.") ? [m.event] : []));

async function sendSealed(device: Device, holding: RoomHolding, serverGeneration: number, text: string) {
  const sender = roomSender(holding, serverGeneration);
  const sealed = await sealRoomText(sender, textMessage(text, server.clock.now()));
  const body: SendRoomMessageInput = { ...sealed, sender_key_id: sender.memberKeyId };
  return device.post(DISCUSSIONS_API.messages(holding.roomId), body);
}

describe("an encrypted discussion through the server", () => {
  it("runs a whole room: link and typed-ID joins, sealed texts, a leave and a rotation; the database holds no clear text", async () => {
    const ana = await person(server, "Ana");
    const bo = await person(server, "Bo");
    const cleo = await person(server, "Cleo");
    const dee = await person(server, "Dee");
    const eve = await person(server, "Eve");
    const created = await createRoomThroughApi(ana.device, NAMES.ana, TITLE);
    expect(created.res.status).toBe(201);
    const A = created.holding;
    const { public_id: publicId, id: roomId } = created.res.body;
    expect(created.res.body.current_generation).toBe(1);
    // The id is the device's: a second discussion under it is refused.
    expect((await ana.device.post(ROOMS_API.create, created.body)).status).toBe(409);
    // So is an account's id (a personal space's), and the answer says the room is encrypted in the list.
    expect((await ana.device.post(ROOMS_API.create, { ...created.body, id: ana.user.id })).status).toBe(409);
    const mine = await ana.device.get<{ discussions: Array<Record<string, unknown>> }>(DISCUSSIONS_API.list);
    expect(mine.body.discussions[0]).toMatchObject({ id: roomId, title: "", encrypted: true, current_generation: 1 });

    // Bo and Cleo join with the link's key; a name equal to Ana's (by its tag) is refused with the clear clash's words.
    const B = (await linkJoinThroughApi(bo.device, publicId, A, NAMES.bo)).holding as RoomHolding;
    const clash = await linkJoinThroughApi(cleo.device, publicId, A, NAMES.ana.toUpperCase());
    expect([clash.res.status, clash.res.body]).toEqual([
      409,
      {
        error: {
          code: "display_name_taken",
          message: "Someone in this discussion already goes by this name: choose another one.",
          field: "display_name",
        },
      },
    ]);
    const C = (await linkJoinThroughApi(cleo.device, publicId, A, NAMES.cleo)).holding as RoomHolding;
    expect(C.rosters.get(1)?.size).toBe(3);

    // Dee types the ID: Bo's device hears of it live, answers with the code, and lets Dee in.
    const boLive = await ready(bo.device);
    const lookup = await dee.device.get<{ id: string; encrypted: boolean }>(ROOMS_API.lookup(publicId));
    expect(lookup.body).toMatchObject({ id: roomId, encrypted: true, current_generation: 1, id_joining: true });
    const deeKey = await newMemberKey();
    const { code, secret } = startJoin(roomId, NAMES.dee, deeKey);
    const asked = await dee.device.post<{ request: JoinRequestAnswer }>(ROOMS_API.requestJoin(publicId), {
      name: NAMES.dee,
      joiner_key_id: deeKey.keyId,
      joiner_public_key: deeKey.publicKey,
      share: secret.share,
    });
    expect(asked.status).toBe(201);
    const requestId = asked.body.request.id;
    await boLive.waitFor((r) => roomEvents(r).some((e) => e.kind === "discussion.join_requested"));
    const listed = await bo.device.get<{ requests: JoinRequestAnswer[] }>(ROOMS_API.requests(roomId));
    const seenByBo = requestOf(listed.body.requests[0] as JoinRequestAnswer);
    await hold(B, 1, roomKeyAt(B, 1), entriesAt((await bo.device.get<RoomState>(ROOMS_API.state(roomId))).body, 1));
    const { answer, keys: boKeys } = answerJoin(seenByBo, code, B.self);
    const answered = await bo.device.post(ROOMS_API.answer(roomId, requestId), answerBody(answer));
    expect(answered.status).toBe(200);
    // A second answer is refused: the first member's stands.
    const second = await ana.device.post(ROOMS_API.answer(roomId, requestId), {
      member_key_id: A.self.keyId,
      member_public_key: A.self.publicKey,
      share: answer.admitterShare,
      confirmation: answer.admitterConfirmation,
    });
    expect([second.status, (second.body as { error: { code: string } }).error.code]).toEqual([409, "join_request_state"]);
    const deeSees = (await dee.device.get<{ request: JoinRequestAnswer }>(ROOMS_API.ownRequest(requestId))).body.request;
    const deeAnswer = joinAnswerOf(deeSees);
    const deeKeys = await checkAnswer(requestOf(deeSees), secret, deeAnswer);
    expect((await dee.device.post(ROOMS_API.confirm(requestId), { confirmation: deeKeys.requesterConfirmation })).status).toBe(200);
    const confirmed = (await bo.device.get<{ requests: JoinRequestAnswer[] }>(ROOMS_API.requests(roomId))).body.requests[0];
    const admission = await admit(B, seenByBo, boKeys, confirmed?.joiner_confirmation ?? "");
    const admitted = await bo.device.post(ROOMS_API.admit(roomId, requestId), {
      entry: await entryBody(currentKeys(B), admission.member, NAMES.dee),
      wraps: admission.wraps.map(wrapBody),
      handover_tag: admission.confirmation,
    });
    expect(admitted.status).toBe(200);
    const handover = (await dee.device.get<{ request: JoinRequestAnswer }>(ROOMS_API.ownRequest(requestId))).body.request;
    const deeState = (await dee.device.get<RoomState>(ROOMS_API.state(roomId))).body;
    const got = { wraps: handover.wraps.map(wrapOf), member: admission.member, confirmation: handover.handover_tag ?? "" };
    const D = await acceptAdmission(requestOf(handover), deeAnswer, deeKeys, deeKey, got, entriesAt(deeState, 1));
    const named = await dee.device.request("PUT", ROOMS_API.own(roomId), {
      values: [{ generation: 0, value: ownValue() }],
      sealed_name: await sealName(currentKeys(D), deeKey.keyId, NAMES.dee),
    });
    expect(named.status).toBe(200);

    // A sealed text, read by a member who joined by link and by the one let in by ID.
    expect((await sendSealed(ana.device, A, 1, TEXTS[0] as string)).status).toBe(201);
    const listedMessages = await dee.device.get<{ messages: Array<Record<string, string | number>> }>(DISCUSSIONS_API.messages(roomId));
    const [m] = listedMessages.body.messages;
    const sealedMessage = {
      id: m?.id,
      type: "text",
      date: m?.date,
      time: m?.time,
      generation: m?.generation,
      senderKeyId: m?.sender_key_id,
      content: m?.content,
      filename: "",
      preview: m?.preview,
    };
    expect(await openRoomMessage(D.generations, sealedMessage as never)).toMatchObject({ state: "opened", text: TEXTS[0] });

    // Cleo leaves: the others are told which key left; Ana's device rotates, Bo's loses the race, a skip is refused.
    const anaLive = await ready(ana.device);
    expect((await cleo.device.post(DISCUSSIONS_API.leave(roomId))).status).toBe(204);
    await anaLive.waitFor((r) => roomEvents(r).some((e) => e.kind === "discussion.member_left"));
    const left = roomEvents(anaLive.received).find((e) => e.kind === "discussion.member_left");
    expect(left).toMatchObject({ key_ids: [C.self.keyId] });
    const before = (await ana.device.get<RoomState>(ROOMS_API.state(roomId))).body;
    for (const h of [A, B]) {
      await hold(h, 1, roomKeyAt(h, 1), entriesAt(before, 1));
      sawLeave(h, C.self.keyId);
    }
    const names = new Map([
      [A.self.keyId, NAMES.ana],
      [B.self.keyId, NAMES.bo],
      [deeKey.keyId, NAMES.dee],
    ]);
    const boRotation = await makeRotation(B, names);
    const { rotation, keep } = await makeRotation(A, names);
    await keep();
    const entries = await Promise.all(rotation.roster.map((e) => entryBody(currentKeys(A), e, names.get(e.keyId) as string)));
    const rotationBody = { generation: 2, sender_key_id: A.self.keyId, entries, wraps: rotation.wraps.map(wrapBody) };
    expect((await ana.device.post(ROOMS_API.generations(roomId), rotationBody)).status).toBe(201);
    const loser = await bo.device.post(ROOMS_API.generations(roomId), {
      ...rotationBody,
      sender_key_id: B.self.keyId,
      wraps: boRotation.rotation.wraps.map(wrapBody),
    });
    expect([loser.status, loser.body]).toEqual([
      409,
      { error: { code: "generation_taken", message: "Generation 2 is taken: the discussion is at generation 2.", field: "generation" } },
    ]);
    const skip = await bo.device.post(ROOMS_API.generations(roomId), { ...rotationBody, generation: 4, sender_key_id: B.self.keyId });
    expect([skip.status, (skip.body as { error: { code: string } }).error.code]).toEqual([409, "generation_skipped"]);

    // Bo's device takes generation 2 from what the server lists for it; a text sealed under 1 is refused, naming 2.
    const boState = (await bo.device.get<RoomState>(ROOMS_API.state(roomId))).body;
    expect(boState.current_generation).toBe(2);
    const boWraps = boState.wraps.filter((w) => w.generation === 2).map(wrapOf);
    await acceptRotation(B, { generation: 2, senderKeyId: A.self.keyId, wraps: boWraps, roster: entriesAt(boState, 2) });
    const stale = await sendSealed(bo.device, { ...B, highest: 1, rosters: new Map([[1, new Map()]]) }, 1, "stale");
    expect([stale.status, stale.body]).toEqual([
      409,
      {
        error: {
          code: "generation_not_current",
          message: "This message is sealed under key generation 1, but the discussion is at generation 2: seal it again.",
          field: "generation",
        },
      },
    ]);
    expect((await sendSealed(bo.device, B, 2, TEXTS[1] as string)).status).toBe(201);
    // Cleo, gone, reads nothing more: not the room, not its messages.
    expect((await cleo.device.get(ROOMS_API.state(roomId))).body).toEqual(NO_SUCH_DISCUSSION);
    expect((await cleo.device.get(DISCUSSIONS_API.messages(roomId))).status).toBe(404);

    // A non-member reads nothing and does nothing.
    const attacker = eve.device;
    for (const res of [
      await attacker.get(ROOMS_API.state(roomId)),
      await attacker.get(ROOMS_API.requests(roomId)),
      await attacker.post(ROOMS_API.answer(roomId, requestId), {
        member_key_id: "a",
        member_public_key: "b",
        share: "c",
        confirmation: "d",
      }),
      await attacker.post(ROOMS_API.generations(roomId), { ...rotationBody, generation: 3 }),
      await sendSealed(attacker, B, 2, "intruder"),
    ]) {
      expect([res.status, res.body]).toEqual([404, NO_SUCH_DISCUSSION]);
    }
    expect((await attacker.get(ROOMS_API.ownRequest(requestId))).status).toBe(404);

    // Ana turns typed-ID joining off (Bo may not); a new request is refused with the reason.
    expect((await bo.device.request("PATCH", ROOMS_API.state(roomId), { id_joining: false })).status).toBe(403);
    expect((await ana.device.request("PATCH", ROOMS_API.state(roomId), { id_joining: false })).status).toBe(200);
    const off = await attacker.post(ROOMS_API.requestJoin(publicId), {
      name: "Eve",
      joiner_key_id: "k",
      joiner_public_key: "p",
      share: "s",
    });
    expect([off.status, off.body]).toEqual([
      409,
      { error: { code: "id_joining_off", message: "The creator of this discussion turned off joining by ID: ask a member for the link." } },
    ]);

    // What the server keeps: no clear title, names (but the one asked with by typed ID) or texts, in any encoding.
    const dump = [...(await everyRow(server)).values()].join("\n");
    for (const secretText of [TITLE, NAMES.ana, NAMES.bo, NAMES.cleo, ...TEXTS]) {
      for (const form of [secretText, Buffer.from(secretText).toString("base64"), Buffer.from(secretText).toString("hex")]) {
        expect(dump.toLowerCase().includes(form.toLowerCase()), form).toBe(false);
      }
    }
  });
});

describe("what a room refuses", () => {
  it("answers malformed sealed strings and bodies with 4xx JSON, a clear text into a room and a sealed one into a clear discussion with 409", async () => {
    const ana = await person(server, "Ana");
    const { res, holding } = await createRoomThroughApi(ana.device, "Ana", "Title");
    const id = res.body.id;
    const good = await sealRoomText(roomSender(holding, 1), textMessage("hi", server.clock.now()));
    const sealed = { ...good, sender_key_id: holding.self.keyId };
    const bad = [
      { ...sealed, content: "v1.1.not base64!" },
      { ...sealed, content: "v2.1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" },
      { ...sealed, generation: 2 },
      { ...sealed, generation: "1" },
      { ...sealed, sender_key_id: "someone-else" },
    ];
    for (const body of bad) {
      const answer = await ana.device.post(DISCUSSIONS_API.messages(id), body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body).toMatchObject({ error: { code: "validation" } });
    }
    for (const [path, body] of [
      [ROOMS_API.create, { id: "x" }],
      [ROOMS_API.create, "just text"],
      [ROOMS_API.generations(id), { generation: 2, sender_key_id: "k", entries: [], wraps: [] }],
      [
        ROOMS_API.generations(id),
        {
          generation: 2,
          sender_key_id: holding.self.keyId,
          entries: [{ ...res.body.generations[0]?.entries[0] }],
          wraps: [{ generation: 2 }],
        },
      ],
      [ROOMS_API.requestJoin(res.body.public_id), { name: "", joiner_key_id: "k", joiner_public_key: "p", share: "s" }],
    ] as const) {
      const answer = await ana.device.post(path, body);
      expect(answer.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(answer.body).toMatchObject({ error: { code: "validation" } });
    }
    const clear = await ana.device.post(DISCUSSIONS_API.messages(id), textMessage("in clear", server.clock.now()));
    expect([clear.status, (clear.body as { error: { code: string } }).error.code]).toEqual([409, "encrypted_discussion"]);
    const cleared = await ana.device.post<{ discussion: { id: string; public_id: string } }>(DISCUSSIONS_API.list, {
      title: "Clear",
      display_name: "Ana",
    });
    const intoClear = await ana.device.post(DISCUSSIONS_API.messages(cleared.body.discussion.id), sealed);
    expect([intoClear.status, (intoClear.body as { error: { code: string } }).error.code]).toEqual([409, "encrypted_discussion"]);
    // The clear join and rename are not ways into a room.
    const bo = await person(server, "Bo");
    const clearJoin = await bo.device.post(DISCUSSIONS_API.join(res.body.public_id), { display_name: "Bo" });
    expect([clearJoin.status, (clearJoin.body as { error: { code: string } }).error.code]).toEqual([409, "encrypted_discussion"]);
    expect((await ana.device.request("PATCH", DISCUSSIONS_API.one(id), { title: "Clear title" })).status).toBe(409);
  });
});
