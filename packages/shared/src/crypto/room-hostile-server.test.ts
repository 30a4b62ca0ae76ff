/**
 * Issue 45's hostile server, against the real room code with real keys: the server relays admissions, member lists,
 * rotations and messages, and changes what it relays. Each change is refused with a RoomError whose message is the
 * sentence the person sees (ROOM_TEXT, SEALED_TEXT.undecryptable).
 */
import { describe, expect, it } from "vitest";
import { SEALED_TEXT } from "../sealed-messages.ts";
import { ROOM_TEXT } from "../ui-text.ts";
import { toBase64Url } from "./encoding.ts";
import { acceptAdmission, admit, answerJoin, checkAnswer, type JoinRequest, joinerKeys, startJoin } from "./room-admission.ts";
import { RoomError } from "./room-errors.ts";
import { cleoLeaves, joinExchange, newMember, OTHER_ROOM_ID, ROOM_ID, roomOfThree, startedRoom } from "./room-fixtures.ts";
import { hold, joinByLink, roomSender, wrapRoomKey } from "./room-holding.ts";
import { deriveRoomKeys, makeRoomKey, nameTag } from "./room-key.ts";
import { keyForRoom, parseRoomLink, roomFragment } from "./room-link.ts";
import { tagMember } from "./room-members.ts";
import { acceptRotation, makeRotation, sawLeave } from "./room-rotation.ts";
import { openRoomMessage, sealRoomText } from "./room-sealing.ts";

const typed = { id: "6a2b3c4d-0000-4000-8000-00000000000a", date: "2026-12-05", time: "10:00 AM", content: "Meet at the station" };

/** The refusal and its words: a RoomError with that reason, whose message is that sentence. */
async function refused(action: Promise<unknown> | (() => unknown), reason: RoomError["reason"]) {
  const error = await (typeof action === "function" ? Promise.resolve().then(action) : action).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RoomError);
  expect((error as RoomError).reason).toBe(reason);
  expect((error as Error).message).toBe(reason === "undecryptable" ? SEALED_TEXT.undecryptable : ROOM_TEXT[reason]);
}

describe("a key substituted at admission", () => {
  it("the server poses as the joining device with its own key: without the code it cannot confirm, so nothing is handed over", async () => {
    const { holding } = await startedRoom();
    const cleo = await newMember();
    const { code } = startJoin(ROOM_ID, "Cleo", cleo);
    // The server puts its own key and a share for its best guess of the code in the request the member's device sees.
    const server = await newMember();
    const guess = code === "000 000" ? "111 111" : "000 000";
    const { secret: serverSecret } = startJoin(ROOM_ID, "Cleo", server, guess);
    const request: JoinRequest = {
      roomId: ROOM_ID,
      requestId: "r",
      name: "Cleo",
      joinerKeyId: server.keyId,
      joinerPublicKey: server.publicKey,
      joinerShare: serverSecret.share,
    };
    const { answer, keys } = answerJoin(request, code, holding.self);
    // Its confirmation, from its side of the exchange with its guess, does not check out under the code typed.
    const asJoiner = joinerKeys(request, serverSecret, answer);
    await refused(admit(holding, request, keys, asJoiner?.requesterConfirmation ?? ""), "wrongCode");
    // Had it guessed right, the same steps would be taken: the refusal is the code's, not the steps'.
    const lucky = startJoin(ROOM_ID, "Cleo", server, code).secret;
    const luckyRequest = { ...request, joinerShare: lucky.share };
    const luckyAnswer = answerJoin(luckyRequest, code, holding.self);
    const luckyKeys = joinerKeys(luckyRequest, lucky, luckyAnswer.answer);
    await expect(admit(holding, luckyRequest, luckyAnswer.keys, luckyKeys?.requesterConfirmation ?? "")).resolves.toBeDefined();
  });

  it("the server swaps the member's key in the answer the joining device sees: its confirmation does not check out", async () => {
    const { holding } = await startedRoom();
    const cleo = await newMember();
    const x = await joinExchange(holding, cleo, "Cleo");
    const server = await newMember();
    await refused(
      checkAnswer(x.request, x.secret, { ...x.answer, admitterKeyId: server.keyId, admitterPublicKey: server.publicKey }),
      "wrongCode",
    );
  });

  it("the server swaps the handed-over key for one of its own: refused (by the handover's tag, and by the wrap's sender)", async () => {
    const { holding, store } = await startedRoom();
    const cleo = await newMember();
    const x = await joinExchange(holding, cleo, "Cleo");
    const server = await newMember();
    const serverKey = makeRoomKey();
    const wrap = await wrapRoomKey(serverKey, { roomId: ROOM_ID, generation: 1 }, cleo, server);
    const swapped = { ...x.admission, wraps: [{ ...wrap, senderKeyId: holding.self.keyId }] };
    store.get(1)?.push(x.admission.member);
    await refused(acceptAdmission(x.request, x.answer, x.joinerKeys, cleo, swapped, store.get(1) ?? []), "keyNotVerified");
    // The real handover, with the list as the server keeps it, is taken.
    await expect(acceptAdmission(x.request, x.answer, x.joinerKeys, cleo, x.admission, store.get(1) ?? [])).resolves.toBeDefined();
  });

  it("the server drops the older generations from a handover: the tag covers exactly what was handed over", async () => {
    const room = await roomOfThree();
    const { ana } = room;
    const rotation = await cleoLeaves(room);
    const dan = await newMember();
    const x = await joinExchange(ana, dan, "Dan");
    expect(x.admission.wraps.map((w) => w.generation)).toEqual([1, 2]);
    const entries = [...rotation.roster, x.admission.member];
    const cut = { ...x.admission, wraps: x.admission.wraps.filter((w) => w.generation === 2) };
    await refused(acceptAdmission(x.request, x.answer, x.joinerKeys, dan, cut, entries), "keyNotVerified");
    const joined = await acceptAdmission(x.request, x.answer, x.joinerKeys, dan, x.admission, entries);
    expect([...joined.generations.keys()].sort()).toEqual([1, 2]);
  });
});

describe("the joining device's own entry withheld", () => {
  it("admitted by typed ID, its entry left out of the list: the key is not accepted", async () => {
    const { holding, store } = await startedRoom();
    const cleo = await newMember();
    const x = await joinExchange(holding, cleo, "Cleo");
    await refused(acceptAdmission(x.request, x.answer, x.joinerKeys, cleo, x.admission, store.get(1) ?? []), "keyNotVerified");
  });

  it("joining by link, its entry left out of the list: the key is not accepted", async () => {
    const { holding, store } = await startedRoom();
    const link = { roomId: ROOM_ID, generation: 1, roomKey: holding.roomKeys.get(1) ?? makeRoomKey() };
    const { holdWith } = await joinByLink(link, await newMember(), "Bo");
    await refused(holdWith(store.get(1) ?? []), "keyNotVerified");
  });
});

describe("a member added by the server", () => {
  it("an entry no member tagged (no admission) makes the list refused", async () => {
    const { holding, store } = await startedRoom();
    const eve = await newMember();
    const entry = { keyId: eve.keyId, publicKey: eve.publicKey, nameTag: "x", addedBy: holding.self.keyId, admission: "code" as const };
    const forged = { ...entry, admissionId: "req-9", tag: toBase64Url(new Uint8Array(32)) };
    await refused(hold(holding, 1, holding.roomKeys.get(1) ?? new Uint8Array(32), [...(store.get(1) ?? []), forged]), "notAdmitted");
  });

  it("a valid entry moved from another discussion makes the list refused", async () => {
    const { holding, store } = await startedRoom();
    const elsewhere = await startedRoom("Eve", OTHER_ROOM_ID);
    const moved = elsewhere.store.get(1) ?? [];
    await refused(hold(holding, 1, holding.roomKeys.get(1) ?? new Uint8Array(32), [...(store.get(1) ?? []), ...moved]), "notAdmitted");
  });

  it("an admitted entry the server rewrites as the creator's makes the list refused", async () => {
    const { bo, store } = await roomOfThree();
    const rewritten = (store.get(1) ?? []).map((m) =>
      m.keyId === bo.self.keyId ? { ...m, admission: "creator" as const, addedBy: null } : m,
    );
    await refused(hold(bo, 1, bo.roomKeys.get(1) ?? new Uint8Array(32), rewritten), "notAdmitted");
  });
});

describe("a rotation skipped, or wrapped for the one who left", () => {
  it("someone left and no new key came: the device seals nothing under the key they still hold", async () => {
    const { bo, cleo } = await roomOfThree();
    expect(() => roomSender(bo, 1)).not.toThrow();
    sawLeave(bo, cleo.self.keyId);
    await refused(() => roomSender(bo, 1), "waitingForNewKey");
  });

  it("the server withholds generation 2 and hands over generation 3: refused", async () => {
    const { ana, bo, cleo, names } = await roomOfThree();
    sawLeave(ana, cleo.self.keyId);
    const second = await makeRotation(ana, names);
    await second.keep();
    const third = await makeRotation(ana, names);
    await refused(acceptRotation(bo, third.rotation), "rotationNotFromMember");
  });

  it("the server hides the leave from the rotating device, which wraps for the one who left: the others refuse it", async () => {
    const { ana, bo, cleo, names } = await roomOfThree();
    sawLeave(bo, cleo.self.keyId);
    const { rotation } = await makeRotation(ana, names);
    expect(rotation.wraps.map((w) => w.recipientKeyId)).toContain(cleo.self.keyId);
    await refused(acceptRotation(bo, rotation), "rotationForDeparted");
  });

  it("the server relays a rotation made by the one who left: refused", async () => {
    const { bo, cleo, names } = await roomOfThree();
    sawLeave(bo, cleo.self.keyId);
    // Cleo's device makes a next key for the others and not for itself: it would know what they send after.
    sawLeave(cleo, cleo.self.keyId);
    const { rotation } = await makeRotation(cleo, names);
    expect(rotation.wraps.map((w) => w.recipientKeyId)).not.toContain(cleo.self.keyId);
    await refused(acceptRotation(bo, rotation), "rotationNotFromMember");
  });

  it("the server adds, to a real rotation, an entry carried from before for someone who never was a member", async () => {
    const room = await roomOfThree();
    const { ana, bo } = room;
    const rotation = await cleoLeaves(room);
    // Tagged with the new key, as only a holder could: the check is that a carried member was in the generation before.
    const eve = await newMember();
    const next = ana.generations.get(2) ?? (await deriveRoomKeys(makeRoomKey(), ROOM_ID, 2));
    const carried = await tagMember(next, {
      keyId: eve.keyId,
      publicKey: eve.publicKey,
      nameTag: await nameTag(next, "Eve"),
      addedBy: ana.self.keyId,
      admission: "carried",
      admissionId: "",
    });
    await refused(acceptRotation(bo, { ...rotation, roster: [...rotation.roster, carried] }), "notAdmitted");
  });
});

describe("a message moved, or an old generation replayed", () => {
  it("a message moved to another discussion does not open there, even one whose key has the same bytes", async () => {
    const { ana, bo } = await roomOfThree();
    const sealed = await sealRoomText(roomSender(ana, 1), typed);
    const message = { ...sealed, type: "text", senderKeyId: ana.self.keyId, filename: "" };
    const sameBytesElsewhere = await deriveRoomKeys(bo.roomKeys.get(1) ?? new Uint8Array(32), OTHER_ROOM_ID, 1);
    await refused(openRoomMessage(new Map([[1, sameBytesElsewhere]]), message), "undecryptable");
    // The associated data binds the room on its own: the same subkeys, opened as another discussion's, refuse it too.
    const sameSubkeysElsewhere = { ...(bo.generations.get(1) ?? sameBytesElsewhere), roomId: OTHER_ROOM_ID };
    await refused(openRoomMessage(new Map([[1, sameSubkeysElsewhere]]), message), "undecryptable");
    await expect(openRoomMessage(bo.generations, message)).resolves.toMatchObject({ state: "opened" });
  });

  it("a message moved to another generation does not open", async () => {
    const room = await roomOfThree();
    const { ana, bo } = room;
    const sealed = await sealRoomText(roomSender(ana, 1), typed);
    const rotation = await cleoLeaves(room);
    await acceptRotation(bo, rotation);
    const message = { ...sealed, type: "text", senderKeyId: ana.self.keyId, filename: "", generation: 2 };
    await refused(openRoomMessage(bo.generations, message), "undecryptable");
  });

  it("an old rotation replayed, or an older generation named current, is refused", async () => {
    const room = await roomOfThree();
    const { bo } = room;
    const rotation = await cleoLeaves(room);
    await acceptRotation(bo, rotation);
    await refused(acceptRotation(bo, rotation), "olderKey");
    await refused(() => roomSender(bo, 1), "olderKey");
    expect(roomSender(bo, 2).keys.generation).toBe(2);
  });

  it("a link opened on another discussion than the one its key was made for: its key is not used", async () => {
    const { holding } = await startedRoom();
    const link = parseRoomLink(roomFragment({ roomId: ROOM_ID, generation: 1, roomKey: holding.roomKeys.get(1) ?? makeRoomKey() }));
    await refused(() => keyForRoom(link, OTHER_ROOM_ID), "linkOtherRoom");
  });
});
