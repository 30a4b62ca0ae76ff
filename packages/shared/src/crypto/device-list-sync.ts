/**
 * A device's side of the signed device list (docs/protocol/encryption.md, "Signed device list"): it reads the list,
 * verifies the whole chain against the head it pinned, and extends it itself: the first entry when it holds the
 * account's key and the list is empty (the first device, or the first upgraded device of an account keyed before the
 * list), "add" for each device the current roster lists with a valid tag and the list does not (the device it just
 * approved, or a device keyed before the list), "remove" for each device it removes.
 */
import type { DeviceList, DeviceListEntry } from "../device-list.ts";
import type { StoredRosterEntry } from "../keys.ts";
import { exportPublicKey } from "./device-key.ts";
import type { SigningKey } from "./device-list.ts";
import { DeviceListError, type ListHead, type ListMember, signEntry, type VerifiedList, verifyDeviceList } from "./device-list.ts";
import type { HeldKeys } from "./held-keys.ts";

export type AppendAnswer = { ok: true; list: DeviceList } | { ok: false; code: string };

export interface DeviceListServer {
  read(): Promise<DeviceList>;
  append(entry: DeviceListEntry): Promise<AppendAnswer>;
  setSigningKey(signingKey: string): Promise<void>;
}

/** What a device knows of the list after reading it: verified, or refused with the sentence to show. */
export type ListView = { ok: true; list: VerifiedList; signingKeys: Map<string, string> } | { ok: false; problem: string };

export function readList(userId: string, answer: DeviceList, pinned?: ListHead): ListView {
  try {
    const list = verifyDeviceList(userId, answer.entries, pinned);
    return { ok: true, list, signingKeys: new Map(answer.signing_keys.map((k) => [k.key_id, k.signing_key])) };
  } catch (error) {
    if (error instanceof DeviceListError) return { ok: false, problem: error.message };
    throw error;
  }
}

/** Whether `keyId` may act as a device of the account: always while the list is empty (accounts keyed before it). */
export function listAllows(view: ListView | undefined, keyId: string): boolean {
  if (!view) return true;
  if (!view.ok) return false;
  return view.list.head === undefined ? !view.list.removed.has(keyId) : view.list.members.has(keyId);
}

/**
 * Appends entries one by one, each after the head it read, reading again when another device was first (409);
 * `next` names the entry to make from the current view, or undefined when nothing is left to do.
 */
export async function extendList(
  userId: string,
  server: DeviceListServer,
  view: ListView,
  next: (view: Extract<ListView, { ok: true }>) => DeviceListEntry | undefined,
): Promise<ListView> {
  let current = view;
  for (let appended = 0; current.ok && appended < 64; appended++) {
    const entry = next(current);
    if (!entry) break;
    const answer = await server.append(entry);
    const list = answer.ok ? answer.list : await server.read();
    const read = readList(userId, list, current.list.head);
    if (!read.ok) return read;
    current = read;
  }
  return current;
}

/** This device as a list member. */
export async function selfMember(held: HeldKeys, signing: SigningKey): Promise<ListMember> {
  return { keyId: held.keyId, publicKey: await exportPublicKey(held.pair.publicKey), signingKey: signing.publicKey };
}

/**
 * The next entry this device, holding the current epoch and its roster key, should sign: the first entry (itself)
 * when the list is empty; then an "add" for a device of the current roster (tag checked by `trusted`) missing from the
 * list, never removed, whose signing key the server has.
 */
export function nextAddition(
  userId: string,
  self: ListMember,
  signing: SigningKey,
  view: Extract<ListView, { ok: true }>,
  trustedRoster: StoredRosterEntry[],
): DeviceListEntry | undefined {
  const { list, signingKeys } = view;
  const signer = { keyId: self.keyId, signing };
  if (!list.head) return signEntry(userId, undefined, "add", self, signer);
  if (!list.members.has(self.keyId)) return undefined;
  for (const row of trustedRoster) {
    const signingKey = signingKeys.get(row.key_id);
    if (row.kind !== "device" || !signingKey || list.members.has(row.key_id) || list.removed.has(row.key_id)) continue;
    return signEntry(userId, list.head, "add", { keyId: row.key_id, publicKey: row.public_key, signingKey }, signer);
  }
  return undefined;
}

/** The next "remove" this device signs for one of `keyIds` still in the list. */
export function nextRemoval(
  userId: string,
  self: ListMember,
  signing: SigningKey,
  view: Extract<ListView, { ok: true }>,
  keyIds: (member: ListMember) => boolean,
): DeviceListEntry | undefined {
  if (!view.list.members.has(self.keyId)) return undefined;
  for (const member of view.list.members.values()) {
    if (member.keyId !== self.keyId && keyIds(member)) {
      return signEntry(userId, view.list.head, "remove", member, { keyId: self.keyId, signing });
    }
  }
  return undefined;
}
