/**
 * The check code of an approval (decision 020, section 4.2), commit-then-reveal so the server cannot search for two
 * keys that give the same code. Public keys and nonces are base64url as they travel; the hashes run over raw bytes:
 * - commitment = SHA-256("daysync/v1/commit" ‖ pkL ‖ rL)
 * - code = first 8 bytes of SHA-256("daysync/v1/check" ‖ request id (UTF-8) ‖ pkL ‖ pkA ‖ rL ‖ rA), big-endian,
 *   mod 10^6, six digits shown "123 456". The request id is the only field of varying length, and it comes first.
 */
import { type Bytes, concatBytes, fromBase64Url, randomBytes, sha256, toBase64Url, utf8 } from "./encoding.ts";

const NONCE_LENGTH = 32;

function nonceBytes(nonce: string): Bytes {
  const bytes = fromBase64Url(nonce);
  if (bytes.length !== NONCE_LENGTH) throw new TypeError(`A check-code nonce is ${NONCE_LENGTH} bytes`);
  return bytes;
}

/** A fresh 32-byte nonce (rL or rA), base64url. */
export function makeCheckNonce(): string {
  return toBase64Url(randomBytes(NONCE_LENGTH));
}

export async function checkCommitment(publicKey: string, nonce: string): Promise<string> {
  return toBase64Url(await sha256(concatBytes(utf8("daysync/v1/commit"), fromBase64Url(publicKey), nonceBytes(nonce))));
}

/** Whether the revealed nonce opens the commitment posted before (false, never a throw, for malformed input). */
export async function verifyCheckCommitment(commitment: string, publicKey: string, nonce: string): Promise<boolean> {
  try {
    return (await checkCommitment(publicKey, nonce)) === commitment;
  } catch {
    return false;
  }
}

export async function checkCode(input: {
  requestId: string;
  requesterPublicKey: string;
  approverPublicKey: string;
  requesterNonce: string;
  approverNonce: string;
}): Promise<string> {
  const digest = await sha256(
    concatBytes(
      utf8("daysync/v1/check"),
      utf8(input.requestId),
      fromBase64Url(input.requesterPublicKey),
      fromBase64Url(input.approverPublicKey),
      nonceBytes(input.requesterNonce),
      nonceBytes(input.approverNonce),
    ),
  );
  const value = new DataView(digest.buffer).getBigUint64(0) % 1_000_000n;
  const digits = value.toString().padStart(6, "0");
  return `${digits.slice(0, 3)} ${digits.slice(3)}`;
}
