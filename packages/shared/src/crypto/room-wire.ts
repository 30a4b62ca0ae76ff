/**
 * A room's member entries, key wraps and join requests between the API's shape (`rooms.ts`, snake case) and the
 * core's, and a member's display name sealed with its entry: one translation for the web app, the CLI and the server's
 * tests.
 */
import type { JoinAnswerInput, JoinRequestAnswer, RoomEntryInput, RoomState, RoomWrapInput } from "../rooms.ts";
import type { JoinAnswer, JoinRequest } from "./room-admission.ts";
import type { RoomKeyWrap } from "./room-holding.ts";
import type { RoomKeys } from "./room-key.ts";
import type { TaggedMember } from "./room-members.ts";
import { type RoomPlace, type SealedRoomMessage, sealRoomValue } from "./room-sealing.ts";

/** Where a member's display name is sealed: field `name`, no message, the member as sender. */
export const namePlace = (keyId: string): RoomPlace => ({ field: "name", messageId: "", type: "", date: "", time: "", senderKeyId: keyId });

/** An entry as the API carries it, as the core takes it. */
export const taggedOf = (e: RoomEntryInput): TaggedMember => ({
  keyId: e.key_id,
  publicKey: e.public_key,
  nameTag: e.name_tag,
  addedBy: e.added_by,
  admission: e.admission,
  admissionId: e.admission_id,
  tag: e.tag,
});

/** A generation's entries as the server lists them, as the core takes them (none for a generation it does not list). */
export const taggedAt = (state: RoomState, generation: number): TaggedMember[] =>
  (state.generations.find((g) => g.generation === generation)?.entries ?? []).map(taggedOf);

export const wrapBody = (w: RoomKeyWrap): RoomWrapInput => ({
  generation: w.generation,
  recipient_key_id: w.recipientKeyId,
  sender_key_id: w.senderKeyId,
  enc: w.enc,
  ciphertext: w.ciphertext,
});

export const wrapOf = (w: RoomWrapInput): RoomKeyWrap => ({
  generation: w.generation,
  recipientKeyId: w.recipient_key_id,
  senderKeyId: w.sender_key_id,
  enc: w.enc,
  ciphertext: w.ciphertext,
});

/** A tagged entry as the API takes it, with the member's name sealed under the same generation. */
export async function entryBody(keys: RoomKeys, m: TaggedMember, name: string): Promise<RoomEntryInput> {
  return {
    key_id: m.keyId,
    public_key: m.publicKey,
    name_tag: m.nameTag,
    added_by: m.addedBy,
    admission: m.admission,
    admission_id: m.admissionId,
    tag: m.tag,
    sealed_name: await sealRoomValue(keys, namePlace(m.keyId), name),
  };
}

/** A join request by typed ID as the API lists it, as the core's exchange takes it. */
export const requestOf = (r: JoinRequestAnswer): JoinRequest => ({
  roomId: r.discussion_id,
  requestId: r.id,
  name: r.name,
  joinerKeyId: r.joiner_key_id,
  joinerPublicKey: r.joiner_public_key,
  joinerShare: r.share,
});

/** The answering member's step of a join request, as the joiner's device checks it (empty while there is none). */
export const joinAnswerOf = (r: JoinRequestAnswer): JoinAnswer => ({
  admitterKeyId: r.member_key_id ?? "",
  admitterPublicKey: r.member_public_key ?? "",
  admitterShare: r.answer_share ?? "",
  admitterConfirmation: r.answer_confirmation ?? "",
});

/** A member's answer to a join request, as the API takes it. */
export const answerBody = (a: JoinAnswer): JoinAnswerInput => ({
  member_key_id: a.admitterKeyId,
  member_public_key: a.admitterPublicKey,
  share: a.admitterShare,
  confirmation: a.admitterConfirmation,
});

/** A discussion's message as the API carries it, as the core opens it (no generation or sender: nothing opens it). */
export const sealedRoomMessageOf = (m: {
  id: string;
  type: string;
  date: string;
  time: string;
  generation?: number | undefined;
  sender_key_id?: string | undefined;
  content: string;
  filename: string;
  preview?: string | undefined;
}): SealedRoomMessage => ({
  id: m.id,
  type: m.type,
  date: m.date,
  time: m.time,
  generation: m.generation ?? 0,
  senderKeyId: m.sender_key_id ?? "",
  content: m.content,
  filename: m.filename,
  preview: m.preview ?? "",
});
