/**
 * The command line in an encrypted discussion (issue 45): a room made from the test with the shared crypto core (as
 * the server's room tests make one), joined by `daysync discussion join LINK`; the terminal's texts open with the
 * room key, the room's texts are printed by `watch --discussion`, a leave stops sends until a member rotates, and the
 * terminal follows the rotation; damaged links and unknown discussions are refused in clear words and exit codes.
 */

import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DISCUSSIONS_API, ROOM_TEXT, type RoomState, responseSchemas, SEALED_TEXT, type SendRoomMessageInput } from "@daysync/shared";
import {
  hold,
  makeRotation,
  openRoomMessage,
  type RoomHolding,
  roomFragment,
  roomSender,
  sawLeave,
  sealedRoomMessageOf,
  sealRoomText,
} from "@daysync/shared/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { person } from "../../server/src/testing/discussion-api.ts";
import {
  createRoomThroughApi,
  currentKeys,
  entriesAt,
  entryBody,
  linkJoinThroughApi,
  roomKeyAt,
  wrapBody,
} from "../../server/src/testing/room-client.ts";
import { type Device, startTestServer, type TestServer, textMessage } from "../../server/src/testing/test-server.ts";
import type { WatchedDiscussionMessage } from "../src/commands/discussion.ts";
import { EXIT } from "../src/errors.ts";
import { removeTempDirs, type Terminal } from "./cli-process.ts";
import { registerBrowser, signedInTerminal } from "./sign-in.ts";

let server: TestServer;
let terminal: Terminal;
beforeAll(async () => {
  // The join routes' limit per session, over the whole file: the terminal's joins take 12 of them; `send` and `watch`
  // find the discussion among the account's own and must take none (a script sending often is not someone typing IDs).
  server = await startTestServer({
    DISCUSSION_JOIN_RATE_LIMIT_MAX: "14",
    DISCUSSION_JOIN_RATE_LIMIT_WINDOW_MS: "3600000",
    DISCUSSION_JOIN_ADDRESS_RATE_LIMIT_MAX: "200",
  });
  await registerBrowser(server.url, "cleo@example.com");
  terminal = await signedInTerminal(server.url, "cleo@example.com");
});
afterAll(async () => {
  await server?.close();
  removeTempDirs();
});

const TITLE = "Qzx summit plans";
const linkOf = (publicId: string, holding: RoomHolding, generation = holding.highest) =>
  `${server.url}/discussions/join/${publicId}${roomFragment({ roomId: holding.roomId, generation, roomKey: roomKeyAt(holding, generation) })}`;

async function sendSealed(device: Device, holding: RoomHolding, serverGeneration: number, text: string) {
  const sender = roomSender(holding, serverGeneration);
  const sealed = await sealRoomText(sender, textMessage(text, server.clock.now()));
  const body: SendRoomMessageInput = { ...sealed, sender_key_id: sender.memberKeyId };
  const res = await device.post(DISCUSSIONS_API.messages(holding.roomId), body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

/** The room's messages as a member's device lists them, opened with what `holding` holds. */
async function openedBy(device: Device, holding: RoomHolding) {
  const listed = await device.get(DISCUSSIONS_API.messages(holding.roomId));
  return Promise.all(
    responseSchemas.discussionMessages.parse(listed.body).messages.map(async (m) => {
      const opened = await openRoomMessage(holding.generations, sealedRoomMessageOf(m));
      return opened.state === "opened" ? opened.text : `(${opened.state})`;
    }),
  );
}

describe("daysync in an encrypted discussion", () => {
  it("joins by link, sends and watches sealed texts, waits after a leave, and follows the rotation", async () => {
    const ana = await person(server, "Ana");
    const bo = await person(server, "Bo");
    const created = await createRoomThroughApi(ana.device, "Anaqzx", TITLE);
    expect(created.res.status).toBe(201);
    const A = created.holding;
    const { public_id: publicId, id: roomId } = created.res.body;
    const B = (await linkJoinThroughApi(bo.device, publicId, A, "Boqzx")).holding as RoomHolding;

    // The terminal joins with the link; what it prints is the title opened with the room key.
    const joined = await terminal.run(["discussion", "join", linkOf(publicId, A), "--name", "Cleoqzx"]);
    expect(joined.code, joined.stderr).toBe(0);
    expect(joined.stdout).toContain(`Joined "${TITLE}"`);
    expect(joined.stdout).toContain("as Cleoqzx");
    // Its account's member seed (generation 0) and room key are stored with the server, sealed for its own devices.
    const own = await server.db
      .selectFrom("room_own")
      .select(["generation", "value"])
      .where("space_id", "=", roomId)
      .where("user_id", "not in", [ana.user.id, bo.user.id])
      .orderBy("generation")
      .execute();
    expect(own.map((o) => o.generation)).toEqual([0, 1]);
    for (const o of own) expect(o.value).toMatch(/^v1\.1\.[A-Za-z0-9_-]+$/);
    // Joining again changes nothing.
    const again = await terminal.run(["discussion", "join", linkOf(publicId, A), "--name", "Cleoqzx", "--json"]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ id: roomId, title: TITLE, joined: false, generation: 1 });

    // Ana's device takes the list with the terminal's entry in it (verified), as a member's device does.
    const listed = (await ana.device.get<RoomState>(`/api/discussions/${roomId}/room`)).body;
    await hold(A, 1, roomKeyAt(A, 1), entriesAt(listed, 1));
    expect(A.rosters.get(1)?.size).toBe(3);

    // A text sent by the terminal (a new process: the membership came back from the server) opens with the room key.
    const sent = await terminal.run(["send", "--discussion", publicId, "Qzx hello from the terminal"]);
    expect(sent.code, sent.stderr).toBe(0);
    expect(await openedBy(ana.device, A)).toEqual(["Qzx hello from the terminal"]);
    const stored = await server.db.selectFrom("messages").select("content").execute();
    expect(JSON.stringify(stored)).not.toContain("Qzx hello");

    // The terminal watches; what Ana sends is printed opened, with her name as her entry seals it.
    const watch = terminal.spawn(["watch", "--discussion", publicId, "--json"]);
    const plain = terminal.spawn(["watch", "--discussion", publicId]);
    await watch.waitFor(/Watching discussion/, { stream: "stderr" });
    await plain.waitFor(/Watching discussion/, { stream: "stderr" });
    await sendSealed(ana.device, A, 1, "Qzx one from Ana");
    await watch.waitFor(/Qzx one from Ana/);
    await plain.waitFor(/^\[\d{1,2}:\d{2} [AP]M\] Anaqzx: Qzx one from Ana\n/m);
    expect(await plain.kill()).toBe(0);
    expect(watch.jsonLines<WatchedDiscussionMessage>().at(-1)).toMatchObject({
      content: "Qzx one from Ana",
      author: "Anaqzx",
      generation: 1,
      discussion_id: roomId,
    });

    // Bo leaves: the terminal seals nothing more under the key Bo holds, and says why.
    expect((await bo.device.post(DISCUSSIONS_API.leave(roomId))).status).toBe(204);
    const waiting = await terminal.run(["send", "--discussion", publicId, "Qzx not while Bo holds the key"]);
    expect(waiting.code).toBe(EXIT.failure);
    expect(waiting.stderr).toContain(ROOM_TEXT.waitingForNewKey);

    // Ana's device rotates without Bo; the terminal reads what is sealed under generation 2, and sends under it.
    await rotateWithout(ana.device, A, B, { ana: "Anaqzx", terminal: "Cleoqzx" });
    await sendSealed(ana.device, A, 2, "Qzx two after the rotation");
    await watch.waitFor(/Qzx two after the rotation/);
    expect(watch.jsonLines<WatchedDiscussionMessage>().at(-1)).toMatchObject({ content: "Qzx two after the rotation", generation: 2 });
    expect(watch.jsonLines<WatchedDiscussionMessage>().every((m) => m.error === undefined)).toBe(true);

    const afterRotation = await terminal.run(["send", "--discussion", publicId, "--json", "Qzx three under the new key"]);
    expect(afterRotation.code, afterRotation.stderr).toBe(0);
    const third = JSON.parse(afterRotation.stdout) as { id: string };
    expect(third).toMatchObject({ generation: 2, content: "Qzx three under the new key" });
    expect(await openedBy(ana.device, A)).toContain("Qzx three under the new key");
    // Bo, gone, holds generation 1 only: the terminal's new text is closed to it.
    expect(await openRoomMessage(B.generations, await sealedOne(ana.device, roomId, third.id))).toEqual({ state: "locked", generation: 2 });

    // A server that offers an older generation than this terminal took (its rotation's values withheld) is refused.
    const rooms = path.join(terminal.configDir, "rooms.json");
    expect(JSON.parse(readFileSync(rooms, "utf8"))).toEqual({ [`${server.url} ${roomId}`]: { highest: 2 } });
    writeFileSync(rooms, JSON.stringify({ [`${server.url} ${roomId}`]: { highest: 3 } }));
    const rolledBack = await terminal.run(["send", "--discussion", publicId, "Qzx not under an older key"]);
    expect([rolledBack.code, rolledBack.stderr.includes(ROOM_TEXT.olderKey)]).toEqual([EXIT.failure, true]);
    expect(await openedBy(ana.device, A)).not.toContain("Qzx not under an older key");

    // Ana ends the discussion: the watch says so and stops; a send is refused with the server's words.
    expect((await ana.device.request("DELETE", DISCUSSIONS_API.one(roomId))).status).toBeLessThan(300);
    await watch.waitFor(/Its creator ended this discussion/, { stream: "stderr" });
    expect(await watch.exited).toBe(EXIT.notFound);
    const ended = await terminal.run(["send", "--discussion", publicId, "Qzx too late"]);
    expect(ended.code).toBe(EXIT.notFound);
    expect(ended.stderr).toContain("No such discussion.");
  }, 240_000);

  let ana: Awaited<ReturnType<typeof person>>;
  let other: Awaited<ReturnType<typeof createRoomThroughApi>>;
  const otherLink = () => linkOf(other.res.body.public_id, other.holding);

  it("refuses a damaged link with the core's words and a missing or long name, as bad arguments (exit 2)", async () => {
    ana = await person(server, "Ana");
    other = await createRoomThroughApi(ana.device, "Ana", "Other");
    const link = otherLink();

    const damaged = await terminal.run(["discussion", "join", link.slice(0, -5), "--name", "Cleo"]);
    expect(damaged.code).toBe(EXIT.usage);
    expect(damaged.stderr).toContain(ROOM_TEXT.linkDamaged);
    const noFragment = await terminal.run(["discussion", "join", link.split("#")[0] ?? "", "--name", "Cleo"]);
    expect([noFragment.code, noFragment.stderr.includes(ROOM_TEXT.linkDamaged)]).toEqual([EXIT.usage, true]);

    const noName = await terminal.run(["discussion", "join", link]);
    expect(noName.code).toBe(EXIT.usage);
    expect(noName.stderr).toContain("--name");
    const longName = await terminal.run(["discussion", "join", link, "--name", "x".repeat(41)]);
    expect(longName.code).toBe(EXIT.usage);
    expect(longName.stderr).toContain("A display name is at most 40 characters.");
  }, 180_000);

  it("refuses an unknown discussion (exit 5), a link whose key is another room's, and a send before joining", async () => {
    const { res } = other;
    const link = otherLink();

    const unknown = await terminal.run(["discussion", "join", link.replace(res.body.public_id, "ZZZZZZZZZZ"), "--name", "Cleo"]);
    expect(unknown.code).toBe(EXIT.notFound);
    expect(unknown.stderr).toContain("No such discussion.");
    const unknownSend = await terminal.run(["send", "--discussion", "ZZZZZ-ZZZZZ", "hi"]);
    expect([unknownSend.code, unknownSend.stderr.includes("No such discussion.")]).toEqual([EXIT.notFound, true]);
    const notAnId = await terminal.run(["watch", "--discussion", "not an id"]);
    expect(notAnId.code).toBe(EXIT.usage);

    // A link whose key was made for another room than the one the server shows for its ID: the key is not used.
    const third = await createRoomThroughApi(ana.device, "Ana", "Third");
    const swapped = `${server.url}/discussions/join/${res.body.public_id}#${linkOf(third.res.body.public_id, third.holding).split("#")[1]}`;
    const wrongRoom = await terminal.run(["discussion", "join", swapped, "--name", "Cleo"]);
    expect(wrongRoom.code).toBe(EXIT.failure);
    expect(wrongRoom.stderr).toContain(ROOM_TEXT.linkOtherRoom);

    // Not joined yet: sending says how to join.
    const notJoined = await terminal.run(["send", "--discussion", res.body.public_id, "hi"]);
    expect(notJoined.code).toBe(EXIT.notFound);
    expect(notJoined.stderr).toContain("daysync discussion join");
  }, 180_000);

  it("refuses a rotation whose key for it does not open from the rotating member's key, in the core's words", async () => {
    const owner = await person(server, "Ana");
    const { res, holding: A } = await createRoomThroughApi(owner.device, "Ana", "Rotated");
    const bo = await person(server, "Bo");
    const B = (await linkJoinThroughApi(bo.device, res.body.public_id, A, "Bo")).holding as RoomHolding;
    const joined = await terminal.run(["discussion", "join", linkOf(res.body.public_id, A), "--name", "Cleo"]);
    expect(joined.code, joined.stderr).toBe(0);
    await hold(A, 1, roomKeyAt(A, 1), entriesAt((await owner.device.get<RoomState>(`/api/discussions/${res.body.id}/room`)).body, 1));
    expect((await bo.device.post(DISCUSSIONS_API.leave(res.body.id))).status).toBe(204);
    const terminalKeyId = await rotateWithout(owner.device, A, B, { ana: "Ana", terminal: "Cleo" });
    // The server hands the terminal Ana's own wrap as if it were its own: it does not open for the terminal's key.
    const anasWrap = await server.db
      .selectFrom("room_wraps")
      .select(["enc", "ciphertext"])
      .where("space_id", "=", res.body.id)
      .where("generation", "=", 2)
      .where("recipient_key_id", "=", A.self.keyId)
      .executeTakeFirstOrThrow();
    await server.db
      .updateTable("room_wraps")
      .set(anasWrap)
      .where("space_id", "=", res.body.id)
      .where("generation", "=", 2)
      .where("recipient_key_id", "=", terminalKeyId)
      .execute();
    const refused = await terminal.run(["send", "--discussion", res.body.public_id, "Qzx not under a key from the server"]);
    expect(refused.code).toBe(EXIT.failure);
    expect(refused.stderr).toContain(ROOM_TEXT.rotationNotFromMember);
    expect(await openedBy(owner.device, A)).toEqual([]);
  }, 180_000);

  it("prints a title chosen to drive the terminal with its control characters written out", async () => {
    const creator = await person(server, "Ana");
    const { res, holding } = await createRoomThroughApi(creator.device, "Ana", "Plans\u001b]52;c;aGk=\u0007\u001b[2J");
    const joined = await terminal.run(["discussion", "join", linkOf(res.body.public_id, holding), "--name", "Cleo"]);
    expect(joined.code, joined.stderr).toBe(0);
    expect(joined.stdout).toContain('Joined "Plans\\x1b]52;c;aGk=\\x07\\x1b[2J"');
    expect(joined.stdout).not.toContain("\u001b");

    // A title the server swapped for another room's does not open: the terminal says so, and stays joined.
    const { res: otherRoom } = await createRoomThroughApi(creator.device, "Ana", "Elsewhere");
    await server.db.updateTable("rooms").set({ sealed_title: otherRoom.body.sealed_title }).where("space_id", "=", res.body.id).execute();
    const again = await terminal.run(["discussion", "join", linkOf(res.body.public_id, holding), "--name", "Cleo", "--json"]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ title: null, title_error: SEALED_TEXT.undecryptable, joined: false });
  }, 120_000);
});

async function sealedOne(device: Device, roomId: string, id: string) {
  const listed = await device.get(DISCUSSIONS_API.messages(roomId));
  const m = responseSchemas.discussionMessages.parse(listed.body).messages.find((message) => message.id === id);
  if (!m) throw new Error(`message ${id} is not listed`);
  return sealedRoomMessageOf(m);
}

/**
 * Ana's device makes the next generation after `leaver` left: wrapped for Ana and the terminal's membership (the
 * other link joiner of generation 1), their names tagged again, posted; answers the terminal's member key id.
 */
async function rotateWithout(device: Device, A: RoomHolding, leaver: RoomHolding, name: { ana: string; terminal: string }) {
  sawLeave(A, leaver.self.keyId);
  const terminalKeyId =
    [...(A.rosters.get(A.highest)?.values() ?? [])].find((m) => m.admission === "link" && m.keyId !== leaver.self.keyId)?.keyId ?? "";
  const names = new Map([
    [A.self.keyId, name.ana],
    [terminalKeyId, name.terminal],
  ]);
  const { rotation, keep } = await makeRotation(A, names);
  await keep();
  const entries = await Promise.all(rotation.roster.map((e) => entryBody(currentKeys(A), e, names.get(e.keyId) as string)));
  const rotated = await device.post(`/api/discussions/${A.roomId}/room/generations`, {
    generation: rotation.generation,
    sender_key_id: A.self.keyId,
    entries,
    wraps: rotation.wraps.map(wrapBody),
  });
  expect(rotated.status, JSON.stringify(rotated.body)).toBe(201);
  return terminalKeyId;
}
