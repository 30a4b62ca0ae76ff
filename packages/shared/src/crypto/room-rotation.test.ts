import { describe, expect, it } from "vitest";
import { ROOM_TEXT } from "../ui-text.ts";
import { roomOfThree } from "./room-fixtures.ts";
import { roomSender } from "./room-holding.ts";
import { acceptRotation, makeRotation, sawLeave } from "./room-rotation.ts";
import { openRoomMessage, sealRoomText } from "./room-sealing.ts";

const typed = { id: "6a2b3c4d-0000-4000-8000-000000000009", date: "2026-12-05", time: "9:30 AM", content: "After Cleo left" };

describe("rotation when a member leaves", () => {
  it("moves the members left to the next generation, and closes what is sent after to the one who left", async () => {
    const { ana, bo, cleo, names } = await roomOfThree();
    for (const holding of [ana, bo]) sawLeave(holding, cleo.self.keyId);
    // Nothing is sealed under the generation the one who left holds.
    expect(() => roomSender(bo, 1)).toThrow(ROOM_TEXT.waitingForNewKey);
    const { rotation, keep } = await makeRotation(ana, names);
    expect(rotation.wraps.map((w) => w.recipientKeyId).sort()).toEqual([ana.self.keyId, bo.self.keyId].sort());
    expect(rotation.roster.every((m) => m.admission === "carried" && m.addedBy === ana.self.keyId)).toBe(true);
    await keep();
    await acceptRotation(bo, rotation);
    expect(bo.highest).toBe(2);
    const sealed = await sealRoomText(roomSender(bo, 2), typed);
    const message = { ...sealed, type: "text", senderKeyId: bo.self.keyId, filename: "" };
    expect(await openRoomMessage(ana.generations, message)).toMatchObject({ state: "opened", text: typed.content });
    expect(await openRoomMessage(cleo.generations, message)).toEqual({ state: "locked", generation: 2 });
    // Cleo's device, handed the rotation, finds no wrap of it for its key.
    await expect(acceptRotation(cleo, rotation)).rejects.toThrow(ROOM_TEXT.rotationNotFromMember);
  });

  it("lets any remaining member rotate, for the members left only; the others take it from that member", async () => {
    const { ana, bo, cleo, names } = await roomOfThree();
    sawLeave(bo, cleo.self.keyId);
    const { rotation } = await makeRotation(bo, names);
    expect(rotation.wraps).toHaveLength(2);
    expect(rotation.roster.map((m) => m.keyId)).not.toContain(cleo.self.keyId);
    sawLeave(ana, cleo.self.keyId);
    await acceptRotation(ana, rotation);
    expect(() => roomSender(ana, 2)).not.toThrow();
  });
});
