/**
 * When a member leaves or is removed, a remaining member's device makes the next generation (docs/protocol/encryption.md,
 * "Encrypted discussions", rotation): a fresh room key, wrapped from its member key for each member of generation n
 * it did not see leave (itself included), and their entries for n+1 (`carried`, added by it). A device takes
 * generation n+1 only as the rule below says; what is sealed under it is closed to the one who left.
 */
import { RoomError, refusedAs } from "./room-errors.ts";
import { hold, openRoomKeyWrap, type RoomHolding, type RoomKeyWrap, wrapRoomKey } from "./room-holding.ts";
import { deriveRoomKeys, makeRoomKey, nameTag } from "./room-key.ts";
import { type TaggedMember, tagMember } from "./room-members.ts";

/** A rotation as the server relays it: the new generation, who made it, its wraps and its entries. */
export interface Rotation {
  generation: number;
  senderKeyId: string;
  wraps: RoomKeyWrap[];
  roster: TaggedMember[];
}

/**
 * The next generation from this device, for every member of its highest generation it did not see leave. `names`
 * gives each remaining member's display name (opened from the discussion), to tag again under the new key. `keep`
 * holds it once the server took it (another member's rotation may win the race; this device then accepts that one).
 */
export async function makeRotation(
  holding: RoomHolding,
  names: ReadonlyMap<string, string>,
): Promise<{ rotation: Rotation; keep: () => Promise<unknown> }> {
  const current = holding.rosters.get(holding.highest);
  if (!current?.has(holding.self.keyId)) throw new Error("This device holds no generation it is a member of");
  const generation = holding.highest + 1;
  const roomKey = makeRoomKey();
  const keys = await deriveRoomKeys(roomKey, holding.roomId, generation);
  const place = { roomId: holding.roomId, generation };
  const wraps: RoomKeyWrap[] = [];
  const roster: TaggedMember[] = [];
  for (const member of current.values()) {
    if (holding.departed.has(member.keyId)) continue;
    const name = names.get(member.keyId);
    if (name === undefined) throw new Error(`No display name for member ${member.keyId}`);
    wraps.push(await wrapRoomKey(roomKey, place, member, holding.self));
    const carried = { keyId: member.keyId, publicKey: member.publicKey, addedBy: holding.self.keyId, admission: "carried" as const };
    roster.push(await tagMember(keys, { ...carried, admissionId: "", nameTag: await nameTag(keys, name) }));
  }
  const rotation = { generation, senderKeyId: holding.self.keyId, wraps, roster };
  return { rotation, keep: () => hold(holding, generation, roomKey, roster) };
}

/**
 * Takes generation n+1, where n is the highest this device holds, only:
 * - when it is n+1: an older or held one is RoomError "olderKey", a later one (a generation skipped, whose sender
 *   cannot be checked against the list before it) "rotationNotFromMember";
 * - from a member of generation n's verified list this device did not see leave, whose wrap for this device opens
 *   from that member's key ("rotationNotFromMember");
 * - when its list verifies under the new key ("notAdmitted"), carries only members of generation n, and holds no
 *   member this device saw leave, with no wrap for one either ("rotationForDeparted").
 */
export async function acceptRotation(holding: RoomHolding, rotation: Rotation): Promise<void> {
  const n = holding.highest;
  if (rotation.generation <= n) throw new RoomError("olderKey");
  const sender = holding.rosters.get(n)?.get(rotation.senderKeyId);
  if (rotation.generation !== n + 1 || !sender || holding.departed.has(sender.keyId)) throw new RoomError("rotationNotFromMember");
  const departedIn = (keyIds: string[]) => keyIds.some((keyId) => holding.departed.has(keyId));
  if (departedIn(rotation.roster.map((m) => m.keyId)) || departedIn(rotation.wraps.map((w) => w.recipientKeyId))) {
    throw new RoomError("rotationForDeparted");
  }
  const own = rotation.wraps.find(
    (w) => w.recipientKeyId === holding.self.keyId && w.senderKeyId === sender.keyId && w.generation === rotation.generation,
  );
  if (!own) throw new RoomError("rotationNotFromMember");
  const roomKey = await refusedAs("rotationNotFromMember", () => openRoomKeyWrap(own, holding.roomId, holding.self, sender.publicKey));
  const previous = holding.rosters.get(n);
  const carriedFromBefore = rotation.roster.every((m) => m.admission !== "carried" || previous?.get(m.keyId)?.publicKey === m.publicKey);
  if (!carriedFromBefore) throw new RoomError("notAdmitted");
  await hold(holding, rotation.generation, roomKey, rotation.roster);
}

/** Notes a member this device saw leave or be removed: it seals nothing more under a generation that lists them. */
export function sawLeave(holding: RoomHolding, memberKeyId: string): void {
  holding.departed.add(memberKeyId);
}
