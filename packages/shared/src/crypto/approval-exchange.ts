/**
 * The exchange of an approval (docs/protocol/encryption.md, "Approving a device"): CPace over ristretto255 with the
 * short code the new device shows as its password, then key confirmation over the whole transcript. Whoever does not
 * know the code derives another key, so each code typed is one guess, checked only by the device that shows it.
 * - generator g = hash_to_ristretto255(lv(DSI) ‖ lv(code) ‖ lv(requester public key), DST) (RFC 9380, SHA-512)
 * - each side: a random scalar y, its share Y = y·g; K = y·Y(peer), refused when it is the identity
 * - transcript T = lv("daysync/v1/approve") ‖ lv(request id) ‖ lv(requester key id) ‖ lv(requester public key) ‖
 *   lv(approver key id) ‖ lv(approver public key) ‖ lv(Y requester) ‖ lv(Y approver)
 * - ISK = SHA-512(lv(DSI "_ISK") ‖ lv(K) ‖ T); approver, requester and handover keys = HKDF-SHA-256(ISK, label)
 * - the approver's confirmation = HMAC(kA, T), the requester's = HMAC(kR, T), the handover's = HMAC(kH, T ‖ handover)
 * lv(x) is x's length as 4 bytes big-endian, then x. Shares, codes and tags travel as base64url.
 */
import { ristretto255, ristretto255_hasher } from "@noble/curves/ed25519.js";
import { hkdf } from "@noble/hashes/hkdf.js";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256, sha512 } from "@noble/hashes/sha2.js";
import { normalizeCodeHalf } from "../pairing-exchange.ts";
import { asBytes, type Bytes, concatBytes, fromBase64Url, randomBytes, toBase64Url, utf8 } from "./encoding.ts";

/**
 * Which exchange runs: the device approval (name "approve", nothing more bound: DSI "CPaceRistretto255/daysync/v1/approve",
 * DST "daysync/v1/approve/hash-to-ristretto255_XMD:SHA-512_R255MAP_RO_", labels "daysync/v1/approve…") or another use of it,
 * such as a discussion's admission (room-admission.ts), whose name replaces "approve" in every string and whose `bound`
 * values (each lv-encoded) follow the public key in the generator's input and the label in the transcript.
 */
export interface ExchangeContext {
  name: string;
  bound: readonly string[];
}

export const APPROVE_CONTEXT: ExchangeContext = { name: "approve", bound: [] };

const dsiOf = (context: ExchangeContext) => `CPaceRistretto255/daysync/v1/${context.name}`;
const boundParts = (context: ExchangeContext) => context.bound.map((value) => lv(utf8(value)));
const CODE_DIGITS = 6;
const SHARE_LENGTH = 32;

/** The values both sides bind into the transcript: who asks, who answers, and both shares. */
export interface ApprovalTranscript {
  requestId: string;
  requesterKeyId: string;
  requesterPublicKey: string;
  approverKeyId: string;
  approverPublicKey: string;
  requesterShare: string;
  approverShare: string;
}

/** The keys one side derives from its secret and the peer's share: to confirm and to authenticate the handover. */
export interface ApprovalKeys {
  approverConfirmation: string;
  requesterConfirmation: string;
  handoverKey: Bytes;
  transcript: Bytes;
}

/** One side's secret scalar and its public share for one code and one requester key. */
export interface ApprovalSecret {
  scalar: bigint;
  share: string;
}

function lv(part: Uint8Array): Bytes {
  const length = new Uint8Array(4);
  new DataView(length.buffer).setUint32(0, part.length);
  return concatBytes(length, part);
}

/** "123 456": six digits from a uniform random number, shown in two groups of three. */
export function makeApprovalCode(): string {
  const limit = 4_294_000_000; // the largest multiple of 10^6 below 2^32: no digit is more likely than another
  for (;;) {
    const value = new DataView(randomBytes(4).buffer).getUint32(0);
    if (value >= limit) continue;
    const digits = (value % 10 ** CODE_DIGITS).toString().padStart(CODE_DIGITS, "0");
    return `${digits.slice(0, 3)} ${digits.slice(3)}`;
  }
}

/** The code as typed (spaces and dashes dropped), or undefined when it is not six digits. */
export function normalizeApprovalCode(typed: string): string | undefined {
  const digits = typed.replace(/[\s-]/g, "");
  return new RegExp(`^[0-9]{${CODE_DIGITS}}$`).test(digits) ? digits : undefined;
}

function generator(code: string, requesterPublicKey: string, context: ExchangeContext) {
  // A QR pairing's typed code runs the same exchange with the new device's half of it as the password.
  const digits = normalizeApprovalCode(code) ?? normalizeCodeHalf(code);
  if (!digits) throw new TypeError("An approval code is six digits");
  const input = concatBytes(lv(utf8(dsiOf(context))), lv(utf8(digits)), lv(fromBase64Url(requesterPublicKey)), ...boundParts(context));
  return ristretto255_hasher.hashToCurve(input, { DST: utf8(`daysync/v1/${context.name}/hash-to-ristretto255_XMD:SHA-512_R255MAP_RO_`) });
}

function randomScalar(): bigint {
  const order = ristretto255.Point.Fn.ORDER;
  for (;;) {
    const wide = randomBytes(64);
    let value = 0n;
    for (const byte of wide) value = (value << 8n) | BigInt(byte);
    const scalar = value % order;
    if (scalar !== 0n) return scalar;
  }
}

/** A fresh secret and share for the code (the side that shows it, and each try of the side that types it). */
export function makeApprovalSecret(code: string, requesterPublicKey: string, context = APPROVE_CONTEXT): ApprovalSecret {
  const scalar = randomScalar();
  return { scalar, share: toBase64Url(generator(code, requesterPublicKey, context).multiply(scalar).toBytes()) };
}

/** Whether a share from the server is a canonical ristretto255 point other than the identity. */
export function isApprovalShare(share: string): boolean {
  try {
    const bytes = fromBase64Url(share);
    return bytes.length === SHARE_LENGTH && !ristretto255.Point.fromBytes(bytes).is0();
  } catch {
    return false;
  }
}

export function transcriptBytes(t: ApprovalTranscript, context = APPROVE_CONTEXT): Bytes {
  return concatBytes(
    lv(utf8(`daysync/v1/${context.name}`)),
    ...boundParts(context),
    lv(utf8(t.requestId)),
    lv(utf8(t.requesterKeyId)),
    lv(fromBase64Url(t.requesterPublicKey)),
    lv(utf8(t.approverKeyId)),
    lv(fromBase64Url(t.approverPublicKey)),
    lv(fromBase64Url(t.requesterShare)),
    lv(fromBase64Url(t.approverShare)),
  );
}

/** Both confirmations and the handover key, from this side's secret and the peer's share; undefined for a bad share. */
export function approvalKeys(
  secret: ApprovalSecret,
  peerShare: string,
  t: ApprovalTranscript,
  context = APPROVE_CONTEXT,
): ApprovalKeys | undefined {
  if (!isApprovalShare(peerShare)) return undefined;
  const shared = ristretto255.Point.fromBytes(fromBase64Url(peerShare)).multiply(secret.scalar);
  if (shared.is0()) return undefined;
  const transcript = transcriptBytes(t, context);
  const isk = sha512(concatBytes(lv(utf8(`${dsiOf(context)}_ISK`)), lv(shared.toBytes()), transcript));
  const key = (label: string) => hkdf(sha256, isk, new Uint8Array(0), utf8(`daysync/v1/${context.name}/${label}`), 32);
  const tag = (label: string) => toBase64Url(hmac(sha256, key(label), transcript));
  return {
    approverConfirmation: tag("approver"),
    requesterConfirmation: tag("requester"),
    handoverKey: asBytes(key("handover")),
    transcript,
  };
}

/** The handover's tag: the epoch wraps (by epoch) and the new roster row, bound to the transcript. */
export function handoverConfirmation(
  keys: ApprovalKeys,
  handover: {
    wraps: Array<{ epoch: number; enc: string; ciphertext: string }>;
    roster: { epoch: number; key_id: string; public_key: string; tag: string };
  },
): string {
  const wraps = [...handover.wraps].sort((a, b) => a.epoch - b.epoch);
  const { roster } = handover;
  return tagOver(keys, [
    String(wraps.length),
    ...wraps.flatMap((w) => [String(w.epoch), w.enc, w.ciphertext]),
    String(roster.epoch),
    roster.key_id,
    roster.public_key,
    roster.tag,
  ]);
}

/** HMAC under the handover key over the transcript, then each part as lv(UTF-8): what the approver hands over, bound to the exchange. */
export function tagOver(keys: ApprovalKeys, parts: readonly string[]): string {
  return toBase64Url(hmac(sha256, keys.handoverKey, concatBytes(keys.transcript, ...parts.map((part) => lv(utf8(part))))));
}

/** Compares two base64url tags in time that does not depend on where they differ. */
export function sameTag(a: string | null | undefined, b: string): boolean {
  if (typeof a !== "string" || a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
