/**
 * Bytes, base64url and UTF-8 for the crypto modules: the same code in the page, the service worker and Node (no Buffer).
 * `Bytes` is a Uint8Array over a plain ArrayBuffer, which is what WebCrypto's typings accept.
 */

export type Bytes = Uint8Array<ArrayBuffer>;

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

export function utf8(text: string): Bytes {
  return encoder.encode(text);
}

/** Throws a TypeError on bytes that are not UTF-8. */
export function fromUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/** `Uint8Array.prototype.toBase64` where the platform has it (Chromium 140 on; not Node 20). */
type NativeBase64 = { toBase64?: (options: { alphabet: "base64url"; omitPadding: boolean }) => string };

/** Unpadded base64url (RFC 4648 section 5). */
export function toBase64Url(bytes: Uint8Array): string {
  // Natively where there is a native: spreading bytes into String.fromCharCode was the top of sealing's profile.
  const native = (bytes as NativeBase64).toBase64;
  if (native) return native.call(bytes, { alphabet: "base64url", omitPadding: true });
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** Strict: only the base64url alphabet, no padding, and no length that no byte string encodes to. */
export function fromBase64Url(text: string): Bytes {
  if (!BASE64URL.test(text) || text.length % 4 === 1) throw new TypeError("Not base64url");
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  if (toBase64Url(bytes) !== text) throw new TypeError("Not base64url");
  return bytes;
}

export function concatBytes(...parts: Uint8Array[]): Bytes {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** The bytes as they are when a plain ArrayBuffer holds them (as files and Node's reads give them), else a copy. */
export function asBytes(bytes: Uint8Array): Bytes {
  return bytes.buffer instanceof ArrayBuffer ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length) : copyBytes(bytes);
}

export function copyBytes(bytes: Uint8Array | ArrayBuffer): Bytes {
  return new Uint8Array(bytes instanceof ArrayBuffer ? bytes.slice(0) : bytes);
}

export function randomBytes(length: number): Bytes {
  return crypto.getRandomValues(new Uint8Array(length));
}

export async function sha256(bytes: Bytes): Promise<Bytes> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}
