/**
 * Roster tags (docs/protocol/encryption.md, "Keys"): each key_roster row carries HMAC-SHA256 under its epoch's roster key over
 * one canonical encoding of its fields, so only a holder of the epoch key writes a row a device accepts:
 *   "daysync/v1/roster|" + [user id, epoch, key id, public key, kind, added by key id ("" when none)]
 *   joined with "|", as UTF-8. No field may contain "|" (ids and base64url never do), so the encoding is unambiguous.
 * When a row was added is the server's note, not part of what a device vouches for.
 */

import { keyId } from "./device-key.ts";
import { fromBase64Url, toBase64Url, utf8 } from "./encoding.ts";
import type { CryptoKey } from "./key-types.ts";
import { hmac, hmacVerify } from "./primitives.ts";

export interface RosterRow {
  userId: string;
  epoch: number;
  keyId: string;
  publicKey: string;
  kind: "device" | "recovery";
  addedByKeyId: string | null;
}

export function rosterRowEncoding(row: RosterRow): string {
  const fields = [row.userId, String(row.epoch), row.keyId, row.publicKey, row.kind, row.addedByKeyId ?? ""];
  if (!Number.isSafeInteger(row.epoch) || fields.some((field) => field.includes("|"))) throw new TypeError("A roster field holds a |");
  return `daysync/v1/roster|${fields.join("|")}`;
}

export async function rosterTag(rosterKey: CryptoKey, row: RosterRow): Promise<string> {
  return toBase64Url(await hmac(rosterKey, utf8(rosterRowEncoding(row))));
}

/** A valid tag, and a key id that is its public key's; false, never a throw, for anything malformed. */
export async function verifyRosterRow(rosterKey: CryptoKey, row: RosterRow, tag: string): Promise<boolean> {
  try {
    if ((await keyId(row.publicKey)) !== row.keyId) return false;
    return await hmacVerify(rosterKey, utf8(rosterRowEncoding(row)), fromBase64Url(tag));
  } catch {
    return false;
  }
}
