import { describe, expect, it } from "vitest";
import { exportPublicKey, generateDeviceKeyPair, keyId } from "./device-key.ts";
import { deriveEpochKeys, makeEpochKey } from "./epoch-keys.ts";
import { type RosterRow, rosterRowEncoding, rosterTag, verifyRosterRow } from "./roster.ts";

async function row(): Promise<RosterRow> {
  const publicKey = await exportPublicKey((await generateDeviceKeyPair()).publicKey);
  return {
    userId: "u_1",
    epoch: 2,
    keyId: await keyId(publicKey),
    publicKey,
    kind: "device",
    addedByKeyId: "k_a",
  };
}

describe("roster tags", () => {
  it("encodes a row one way", async () => {
    const r = await row();
    expect(rosterRowEncoding(r)).toBe(`daysync/v1/roster|u_1|2|${r.keyId}|${r.publicKey}|device|k_a`);
    expect(rosterRowEncoding({ ...r, addedByKeyId: null }).endsWith("|device|")).toBe(true);
    expect(() => rosterRowEncoding({ ...r, userId: "u|1" })).toThrow(TypeError);
  });

  it("verifies a row tagged with the epoch's roster key, and refuses any changed field or another key", async () => {
    const epochKey = makeEpochKey();
    const { roster } = await deriveEpochKeys(epochKey, "u_1");
    const r = await row();
    const tag = await rosterTag(roster, r);
    expect(await verifyRosterRow(roster, r, tag)).toBe(true);

    const other = await row();
    const changes: Partial<RosterRow>[] = [
      { userId: "u_2" },
      { epoch: 3 },
      { publicKey: other.publicKey, keyId: other.keyId },
      { kind: "recovery" },
      { addedByKeyId: null },
    ];
    for (const change of changes) expect(await verifyRosterRow(roster, { ...r, ...change }, tag), JSON.stringify(change)).toBe(false);
    expect(await verifyRosterRow((await deriveEpochKeys(makeEpochKey(), "u_1")).roster, r, tag)).toBe(false);
    expect(await verifyRosterRow((await deriveEpochKeys(epochKey, "u_2")).roster, r, tag)).toBe(false);
  });

  it("refuses a row whose key id is not its public key's, even with a valid tag", async () => {
    const { roster } = await deriveEpochKeys(makeEpochKey(), "u_1");
    const r = { ...(await row()), keyId: (await row()).keyId };
    expect(await verifyRosterRow(roster, r, await rosterTag(roster, r))).toBe(false);
  });
});
