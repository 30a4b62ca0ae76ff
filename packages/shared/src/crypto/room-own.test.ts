import { describe, expect, it } from "vitest";
import { deriveEpochKeys, makeEpochKey } from "./epoch-keys.ts";
import { UndecryptableError } from "./errors.ts";
import { ROOM_ID } from "./room-fixtures.ts";
import { makeMemberSeed, memberKeyOf } from "./room-key.ts";
import { openFromOwnDevices, sealForOwnDevices } from "./room-own.ts";

describe("a membership shared with the account's other devices", () => {
  it("seals the member seed for every device holding the account's epoch, and nowhere else", async () => {
    const epochKey = makeEpochKey();
    const laptop = await deriveEpochKeys(epochKey, "u_1");
    const phone = await deriveEpochKeys(epochKey, "u_1");
    const seed = makeMemberSeed();
    const place = { userId: "u_1", accountEpoch: 3, roomId: ROOM_ID, what: "member-seed" as const, generation: 0 };
    const sealed = await sealForOwnDevices(laptop, place, seed);
    expect(sealed).toMatch(/^v1\.3\./);
    const opened = await openFromOwnDevices(phone, place, sealed);
    expect((await memberKeyOf(opened)).publicKey).toBe((await memberKeyOf(seed)).publicKey);
    for (const moved of [{ what: "room-key" as const }, { generation: 1 }, { roomId: "7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f" }]) {
      await expect(openFromOwnDevices(phone, { ...place, ...moved }, sealed)).rejects.toThrow(UndecryptableError);
    }
    const otherAccount = await deriveEpochKeys(epochKey, "u_2");
    await expect(openFromOwnDevices(otherAccount, { ...place, userId: "u_2" }, sealed)).rejects.toThrow(UndecryptableError);
  });
});
