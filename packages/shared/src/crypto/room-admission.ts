/**
 * Admission by typed ID (docs/protocol/encryption.md, "Encrypted discussions", admission): the joining device (J) has
 * no key, so a member's device (M) that shows "Cleo wants to join" admits it with the six-digit code J shows, typed on
 * M. It is the approval's CPace exchange (approval-exchange.ts) under the name "room-admit" with the room id and the
 * name J asked to join as bound values, over J's and M's member keys: the server cannot learn the code, and every
 * share or key it swaps makes the confirmations fail. M then wraps every generation it holds for J's member key and
 * tags J's entry in the current generation; the handover's tag covers exactly those, checked by J before it opens any.
 */
import {
  type ApprovalKeys,
  type ApprovalSecret,
  approvalKeys,
  type ExchangeContext,
  makeApprovalCode,
  makeApprovalSecret,
  normalizeApprovalCode,
  sameTag,
  tagOver,
} from "./approval-exchange.ts";
import { keyId } from "./device-key.ts";
import type { Bytes } from "./encoding.ts";
import { RoomError, refusedAs } from "./room-errors.ts";
import { emptyHolding, hold, holdOlder, openRoomKeyWrap, type RoomHolding, type RoomKeyWrap, wrapRoomKey } from "./room-holding.ts";
import type { MemberKey } from "./room-key.ts";
import { nameTag } from "./room-key.ts";
import { memberEncoding, type TaggedMember, tagMember } from "./room-members.ts";

/** A join request as J posts it and M first sees it (each side keeps its first copy). */
export interface JoinRequest {
  roomId: string;
  requestId: string;
  name: string;
  joinerKeyId: string;
  joinerPublicKey: string;
  joinerShare: string;
}

/** M's answer: its member key, its share for the code typed, and its confirmation. */
export interface JoinAnswer {
  admitterKeyId: string;
  admitterPublicKey: string;
  admitterShare: string;
  admitterConfirmation: string;
}

/** What M hands over: the room keys wrapped for J, J's tagged entry in the current generation, and the tag over both. */
export interface Admission {
  wraps: RoomKeyWrap[];
  member: TaggedMember;
  confirmation: string;
}

const roomContext = (request: Pick<JoinRequest, "roomId" | "name">): ExchangeContext => ({
  name: "room-admit",
  bound: [request.roomId, request.name],
});

const transcriptOf = (request: JoinRequest, answer: Pick<JoinAnswer, "admitterKeyId" | "admitterPublicKey" | "admitterShare">) => ({
  requestId: request.requestId,
  requesterKeyId: request.joinerKeyId,
  requesterPublicKey: request.joinerPublicKey,
  approverKeyId: answer.admitterKeyId,
  approverPublicKey: answer.admitterPublicKey,
  requesterShare: request.joinerShare,
  approverShare: answer.admitterShare,
});

/** J, before posting: the code it shows (`code` only in tests) and its secret and share for it, bound to the room, the name and its key. */
export function startJoin(
  roomId: string,
  name: string,
  joiner: MemberKey,
  code = makeApprovalCode(),
): { code: string; secret: ApprovalSecret } {
  return { code, secret: makeApprovalSecret(code, joiner.publicKey, roomContext({ roomId, name })) };
}

/** M, on "Admit" with the code typed: its answer, and the exchange's keys it keeps for the handover. */
export function answerJoin(request: JoinRequest, typedCode: string, admitter: MemberKey): { answer: JoinAnswer; keys: ApprovalKeys } {
  const code = normalizeApprovalCode(typedCode);
  if (!code) throw new TypeError("The code is six digits");
  const secret = makeApprovalSecret(code, request.joinerPublicKey, roomContext(request));
  const own = { admitterKeyId: admitter.keyId, admitterPublicKey: admitter.publicKey, admitterShare: secret.share };
  const keys = approvalKeys(secret, request.joinerShare, transcriptOf(request, own), roomContext(request));
  if (!keys) throw new RoomError("wrongCode");
  return { answer: { ...own, admitterConfirmation: keys.approverConfirmation }, keys };
}

/** J's side of the exchange for an answer: undefined for a share that is no point. */
export function joinerKeys(request: JoinRequest, secret: ApprovalSecret, answer: JoinAnswer): ApprovalKeys | undefined {
  return approvalKeys(secret, answer.admitterShare, transcriptOf(request, answer), roomContext(request));
}

/** J: M's answer checked under the code J shows (RoomError "wrongCode" otherwise); J's confirmation to send back. */
export async function checkAnswer(request: JoinRequest, secret: ApprovalSecret, answer: JoinAnswer): Promise<ApprovalKeys> {
  const keys = joinerKeys(request, secret, answer);
  const admitterKeyId = await keyId(answer.admitterPublicKey).catch(() => "");
  if (!keys || admitterKeyId !== answer.admitterKeyId || !sameTag(answer.admitterConfirmation, keys.approverConfirmation)) {
    throw new RoomError("wrongCode");
  }
  return keys;
}

/** The parts the handover's tag covers: each wrap by generation, then J's entry and its tag. */
function handoverParts(request: Pick<JoinRequest, "roomId">, admission: Omit<Admission, "confirmation">): string[] {
  const wraps = [...admission.wraps].sort((a, b) => a.generation - b.generation);
  const generation = wraps.at(-1)?.generation ?? 0;
  const entry = memberEncoding({ roomId: request.roomId, generation }, admission.member);
  return [
    String(wraps.length),
    ...wraps.flatMap((w) => [String(w.generation), w.recipientKeyId, w.senderKeyId, w.enc, w.ciphertext]),
    entry,
    admission.member.tag,
  ];
}

/**
 * M, once J's confirmation checked out under this try's keys (RoomError "wrongCode" otherwise): every generation M
 * holds wrapped for J's kept key, J's entry in M's highest generation (admission `code`, id the request's), the tag.
 */
export async function admit(
  holding: RoomHolding,
  request: JoinRequest,
  keys: ApprovalKeys,
  joinerConfirmation: string,
): Promise<Admission> {
  if (!sameTag(joinerConfirmation, keys.requesterConfirmation)) throw new RoomError("wrongCode");
  const joiner = { keyId: request.joinerKeyId, publicKey: request.joinerPublicKey };
  const wraps: RoomKeyWrap[] = [];
  for (const [generation, roomKey] of [...holding.roomKeys].sort(([a], [b]) => a - b)) {
    wraps.push(await wrapRoomKey(roomKey, { roomId: holding.roomId, generation }, joiner, holding.self));
  }
  const current = holding.generations.get(holding.highest);
  if (!current) throw new Error("This device holds no generation of the discussion");
  const member = await tagMember(current, {
    ...joiner,
    nameTag: await nameTag(current, request.name),
    addedBy: holding.self.keyId,
    admission: "code",
    admissionId: request.requestId,
  });
  return { wraps, member, confirmation: tagOver(keys, handoverParts(request, { wraps, member })) };
}

/**
 * J takes the handover only if its tag checks out under the exchange's keys, every wrap opens for J's key from M's
 * kept key (HPKE auth mode), and the newest generation's list as the server has it (`entries`) verifies and names J.
 * RoomError "keyNotVerified" otherwise ("notAdmitted" for an entry no member made). The holding J keeps from then on.
 */
export async function acceptAdmission(
  request: JoinRequest,
  answer: JoinAnswer,
  keys: ApprovalKeys,
  joiner: MemberKey,
  admission: Admission,
  entries: readonly TaggedMember[],
): Promise<RoomHolding> {
  if (!sameTag(admission.confirmation, tagOver(keys, handoverParts(request, admission)))) throw new RoomError("keyNotVerified");
  const holding = emptyHolding(request.roomId, joiner);
  const sorted = [...admission.wraps].sort((a, b) => a.generation - b.generation);
  const opened = new Map<number, Bytes>();
  for (const wrap of sorted) {
    opened.set(
      wrap.generation,
      await refusedAs("keyNotVerified", () => openRoomKeyWrap(wrap, request.roomId, joiner, answer.admitterPublicKey)),
    );
  }
  const current = sorted.at(-1)?.generation;
  const currentKey = current === undefined ? undefined : opened.get(current);
  if (current === undefined || !currentKey) throw new RoomError("keyNotVerified");
  await hold(holding, current, currentKey, entries);
  // Older generations came in the same tagged handover; only the current one's list decides who gets the next.
  for (const [generation, roomKey] of opened) if (generation !== current) await holdOlder(holding, generation, roomKey);
  return holding;
}
