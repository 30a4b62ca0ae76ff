/**
 * A discussion's member list, one per key generation (docs/protocol/encryption.md, "Encrypted discussions"): who holds
 * generation n, who added them and under which admission. Each entry carries HMAC-SHA256 under generation n's roster
 * key over `daysync/v1/room-roster|<room id>|<n>|<key id>|<public key>|<name tag>|<added by or "">|<admission>|<admission id>`,
 * so only a holder of that generation's key writes an entry a device accepts: the server cannot add anyone.
 * Admissions: `creator` (generation 1's first member, added by no one), `link` (the link's key holder, added by itself),
 * `code` (admitted by typed ID: added by the member who typed the code, admission id the join request's id), `carried`
 * (kept by a rotation: added by the member who rotated).
 */
import { keyId } from "./device-key.ts";
import { fromBase64Url, toBase64Url, utf8 } from "./encoding.ts";
import { hmac, hmacVerify } from "./primitives.ts";
import { RoomError } from "./room-errors.ts";
import type { RoomKeys } from "./room-key.ts";

export type Admission = "creator" | "link" | "code" | "carried";

export interface RoomMember {
  keyId: string;
  publicKey: string;
  nameTag: string;
  addedBy: string | null;
  admission: Admission;
  admissionId: string;
}

export interface TaggedMember extends RoomMember {
  tag: string;
}

/** A generation's verified members, by key id. */
export type RoomRoster = ReadonlyMap<string, RoomMember>;

export function memberEncoding(keys: Pick<RoomKeys, "roomId" | "generation">, m: RoomMember): string {
  const fields = [keys.roomId, String(keys.generation), m.keyId, m.publicKey, m.nameTag, m.addedBy ?? "", m.admission, m.admissionId];
  if (fields.some((field) => field.includes("|"))) throw new TypeError("A member field holds a |");
  return `daysync/v1/room-roster|${fields.join("|")}`;
}

export async function tagMember(keys: RoomKeys, member: RoomMember): Promise<TaggedMember> {
  const { keyId, publicKey, nameTag, addedBy, admission, admissionId } = member;
  const plain = { keyId, publicKey, nameTag, addedBy, admission, admissionId };
  return { ...plain, tag: toBase64Url(await hmac(keys.roster, utf8(memberEncoding(keys, plain)))) };
}

async function validTag(keys: RoomKeys, entry: TaggedMember): Promise<boolean> {
  try {
    return (
      (await keyId(entry.publicKey)) === entry.keyId &&
      (await hmacVerify(keys.roster, utf8(memberEncoding(keys, entry)), fromBase64Url(entry.tag)))
    );
  } catch {
    return false;
  }
}

/** Whether an entry's admission fits its generation and the entries beside it. */
function admitted(generation: number, entry: RoomMember, roster: RoomRoster): boolean {
  const addedByMember = entry.addedBy !== null && entry.addedBy !== entry.keyId && roster.has(entry.addedBy);
  switch (entry.admission) {
    case "creator":
      return generation === 1 && entry.addedBy === null && entry.admissionId === "";
    case "link":
      return entry.addedBy === entry.keyId && entry.admissionId === "";
    case "code":
      return addedByMember && entry.admissionId !== "";
    case "carried":
      return generation > 1 && entry.addedBy !== null && roster.has(entry.addedBy) && entry.admissionId === "";
  }
}

/**
 * A generation's entries as the server lists them, each checked: a tag under the generation's roster key, a key id
 * that is its public key's, one entry per key, at most one creator, and an admission that fits. RoomError
 * "notAdmitted" for any entry that fails: the server added it, or moved it from another discussion or generation.
 */
export async function verifyRoster(keys: RoomKeys, entries: readonly TaggedMember[]): Promise<RoomRoster> {
  const roster = new Map<string, RoomMember>();
  for (const entry of entries) {
    if (roster.has(entry.keyId) || !(await validTag(keys, entry))) throw new RoomError("notAdmitted");
    const { tag: _tag, ...member } = entry;
    roster.set(entry.keyId, member);
  }
  const creators = [...roster.values()].filter((m) => m.admission === "creator").length;
  if (creators > 1 || [...roster.values()].some((m) => !admitted(keys.generation, m, roster))) throw new RoomError("notAdmitted");
  return roster;
}
