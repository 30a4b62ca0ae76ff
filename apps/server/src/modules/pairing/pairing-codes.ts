/** Random codes of pairing: long code for the QR, short code for typing, secret and token; only hashes are stored. */
import { createHash, randomBytes, randomInt, timingSafeEqual } from "node:crypto";
import { PAIRING_LOOKUP_LENGTH, SHORT_CODE_ALPHABET, SHORT_CODE_LENGTH } from "@daysync/shared";

/** 192 bits: the issue asks for at least 128. */
export const newCode = () => randomBytes(24).toString("base64url");
export const newSecret = () => randomBytes(32).toString("base64url");
export const newToken = () => randomBytes(32).toString("base64url");

export function newShortCode(): string {
  let code = "";
  for (let i = 0; i < SHORT_CODE_LENGTH; i++) code += SHORT_CODE_ALPHABET[randomInt(SHORT_CODE_ALPHABET.length)];
  return code;
}

/** The server's half of a typed pairing code (pairing-exchange.ts); the new device adds its password half. */
export function newLookupCode(): string {
  let code = "";
  for (let i = 0; i < PAIRING_LOOKUP_LENGTH; i++) code += SHORT_CODE_ALPHABET[randomInt(SHORT_CODE_ALPHABET.length)];
  return code;
}

export const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");

/** Compares a presented value with a stored hash in constant time. */
export function matchesHash(value: string, hash: string): boolean {
  const a = Buffer.from(sha256(value), "hex");
  const b = Buffer.from(hash, "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}
