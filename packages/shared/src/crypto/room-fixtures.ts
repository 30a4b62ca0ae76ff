/**
 * For the discussions' tests only: members with real keys, and the relay a server keeps (each generation's entries as
 * posted), so a test can play the whole admission and change what the server relays.
 */

import type { Bytes } from "./encoding.ts";
import { acceptAdmission, admit, answerJoin, checkAnswer, type JoinRequest, startJoin } from "./room-admission.ts";
import { createRoom, hold, type RoomHolding } from "./room-holding.ts";
import { type MemberKey, makeMemberSeed, memberKeyOf } from "./room-key.ts";
import type { TaggedMember } from "./room-members.ts";
import { makeRotation, sawLeave } from "./room-rotation.ts";

export const ROOM_ID = "0b7f3c1e-5a2d-4e8f-9c6b-1d2e3f4a5b6c";
export const OTHER_ROOM_ID = "7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f";

export const newMember = (): Promise<MemberKey> => memberKeyOf(makeMemberSeed());

/** What the server keeps of a discussion's members: each generation's entries as posted. */
export type RosterStore = Map<number, TaggedMember[]>;

/** A discussion made by a new member named `name`, and the server's copy of its first entry. */
export async function startedRoom(name = "Ana", roomId = ROOM_ID) {
  const self = await newMember();
  const { entry, holding } = await createRoom(roomId, self, name);
  const store: RosterStore = new Map([[1, [entry]]]);
  return { self, holding, store };
}

/** Both sides of an admission up to the handover, with the values each kept, as an honest server relays them. */
export async function joinExchange(admitter: RoomHolding, joiner: MemberKey, name: string, requestId = "req-1") {
  const { code, secret } = startJoin(admitter.roomId, name, joiner);
  const request: JoinRequest = {
    roomId: admitter.roomId,
    requestId,
    name,
    joinerKeyId: joiner.keyId,
    joinerPublicKey: joiner.publicKey,
    joinerShare: secret.share,
  };
  const { answer, keys: admitterKeys } = answerJoin(request, code, admitter.self);
  const joinerKeys = await checkAnswer(request, secret, answer);
  const admission = await admit(admitter, request, admitterKeys, joinerKeys.requesterConfirmation);
  return { code, secret, request, answer, admitterKeys, joinerKeys, admission };
}

/** Ana's discussion with Bo and Cleo admitted by code, each device's holding, and the server's entries. */
export async function roomOfThree() {
  const { holding: ana, store } = await startedRoom("Ana");
  const join = async (name: string, requestId: string) => {
    const joiner = await newMember();
    const x = await joinExchange(ana, joiner, name, requestId);
    store.get(ana.highest)?.push(x.admission.member);
    return acceptAdmission(x.request, x.answer, x.joinerKeys, joiner, x.admission, store.get(ana.highest) ?? []);
  };
  const bo = await join("Bo", "req-bo");
  const cleo = await join("Cleo", "req-cleo");
  for (const holding of [ana, bo]) await hold(holding, 1, holding.roomKeys.get(1) as Bytes, store.get(1) ?? []);
  const names = new Map([
    [ana.self.keyId, "Ana"],
    [bo.self.keyId, "Bo"],
    [cleo.self.keyId, "Cleo"],
  ]);
  return { ana, bo, cleo, store, names };
}

/** Ana's and Bo's devices see Cleo leave; Ana's device makes generation 2 and keeps it. The rotation as relayed. */
export async function cleoLeaves(room: Awaited<ReturnType<typeof roomOfThree>>) {
  for (const holding of [room.ana, room.bo]) sawLeave(holding, room.cleo.self.keyId);
  const { rotation, keep } = await makeRotation(room.ana, room.names);
  await keep();
  return rotation;
}
