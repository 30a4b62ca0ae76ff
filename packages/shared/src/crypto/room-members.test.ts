import { describe, expect, it } from "vitest";
import { ROOM_TEXT } from "../ui-text.ts";
import { newMember, ROOM_ID } from "./room-fixtures.ts";
import { deriveRoomKeys, makeRoomKey } from "./room-key.ts";
import { type RoomMember, tagMember, verifyRoster } from "./room-members.ts";

async function listOf(generation: number, ...shapes: Array<(a: string, b: string) => Partial<RoomMember>>) {
  const keys = await deriveRoomKeys(makeRoomKey(), ROOM_ID, generation);
  const [a, b] = [await newMember(), await newMember()];
  const base = (m: { keyId: string; publicKey: string }) => ({ keyId: m.keyId, publicKey: m.publicKey, nameTag: "t", admissionId: "" });
  const creator: RoomMember = { ...base(a), addedBy: null, admission: "creator" };
  const entries = [
    creator,
    ...shapes.map((shape) => ({ ...base(b), addedBy: a.keyId, admission: "code" as const, ...shape(a.keyId, b.keyId) })),
  ];
  return { keys, entries: await Promise.all(entries.map((entry) => tagMember(keys, entry))) };
}

describe("a generation's member list", () => {
  it("takes a creator and a member admitted by code, by link or carried, each added by someone listed", async () => {
    const code = await listOf(1, () => ({ admissionId: "req-1" }));
    expect((await verifyRoster(code.keys, code.entries)).size).toBe(2);
    const link = await listOf(1, (_, b) => ({ addedBy: b, admission: "link" }));
    expect((await verifyRoster(link.keys, link.entries)).size).toBe(2);
  });

  it.each([
    ["a second creator", 1, () => ({ addedBy: null, admission: "creator" as const })],
    ["a creator after generation 1", 2, () => ({ admission: "carried" as const })],
    ["a link entry added by another", 1, (a: string) => ({ addedBy: a, admission: "link" as const })],
    ["a code entry by someone not listed", 1, () => ({ addedBy: "nobody", admissionId: "req-1" })],
    ["a code entry without its request", 1, () => ({})],
    ["a carried entry in generation 1", 1, () => ({ admission: "carried" as const })],
  ])("refuses %s, even tagged by a holder of the key", async (_, generation, shape) => {
    const { keys, entries } = await listOf(generation, shape);
    await expect(verifyRoster(keys, entries)).rejects.toThrow(ROOM_TEXT.notAdmitted);
  });
});
