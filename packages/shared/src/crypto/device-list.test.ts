import { describe, expect, it } from "vitest";
import { DEVICE_LIST_TEXT } from "../ui-text.ts";
import { exportPublicKey, generateDeviceKeyPair, keyId } from "./device-key.ts";
import {
  DeviceListError,
  entryHash,
  type ListMember,
  makeSigningKey,
  type SigningKey,
  securityCode,
  signEntry,
  verifyDeviceList,
} from "./device-list.ts";

const USER = "user-1";

async function device(): Promise<{ member: ListMember; signer: { keyId: string; signing: SigningKey } }> {
  const pair = await generateDeviceKeyPair();
  const signing = makeSigningKey();
  const id = await keyId(pair.publicKey);
  return {
    member: { keyId: id, publicKey: await exportPublicKey(pair.publicKey), signingKey: signing.publicKey },
    signer: { keyId: id, signing },
  };
}

const refused = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof DeviceListError) return error.message;
    throw error;
  }
  return undefined;
};

describe("the signed device list", () => {
  it("verifies a chain of additions and a removal, each signed by a member, and answers the members and the head", async () => {
    const [a, b, c] = [await device(), await device(), await device()];
    const e0 = signEntry(USER, undefined, "add", a.member, a.signer);
    const e1 = signEntry(USER, { seq: 0, hash: entryHash(USER, e0) }, "add", b.member, a.signer);
    const e2 = signEntry(USER, { seq: 1, hash: entryHash(USER, e1) }, "add", c.member, b.signer);
    const e3 = signEntry(USER, { seq: 2, hash: entryHash(USER, e2) }, "remove", c.member, a.signer);
    const list = verifyDeviceList(USER, [e0, e1, e2, e3], { seq: 1, hash: entryHash(USER, e1) });
    expect([...list.members.keys()]).toEqual([a.member.keyId, b.member.keyId]);
    expect([...list.removed]).toEqual([c.member.keyId]);
    expect(list.head).toEqual({ seq: 3, hash: entryHash(USER, e3) });
  });

  it("refuses a first entry not signed by its own device, a signer not in the list, a changed entry and a broken chain", async () => {
    const [a, b] = [await device(), await device()];
    const e0 = signEntry(USER, undefined, "add", a.member, a.signer);
    expect(refused(() => verifyDeviceList(USER, [signEntry(USER, undefined, "add", a.member, b.signer)]))).toBe(DEVICE_LIST_TEXT.broken);
    const byStranger = signEntry(USER, { seq: 0, hash: entryHash(USER, e0) }, "add", b.member, b.signer);
    expect(refused(() => verifyDeviceList(USER, [e0, byStranger]))).toBe(DEVICE_LIST_TEXT.broken);
    const good = signEntry(USER, { seq: 0, hash: entryHash(USER, e0) }, "add", b.member, a.signer);
    expect(refused(() => verifyDeviceList(USER, [e0, { ...good, kind: "remove" }]))).toBe(DEVICE_LIST_TEXT.broken);
    expect(refused(() => verifyDeviceList(USER, [e0, { ...good, prev: entryHash(USER, good) }]))).toBe(DEVICE_LIST_TEXT.broken);
    expect(refused(() => verifyDeviceList(USER, [e0, { ...good, signer_key_id: b.member.keyId }]))).toBe(DEVICE_LIST_TEXT.broken);
    expect(refused(() => verifyDeviceList(USER, [e0, { ...good, signature: "A".repeat(86) }]))).toBe(DEVICE_LIST_TEXT.broken);
  });

  it("refuses a removed device added again with its old keys, even when a member signs it", async () => {
    const [a, b] = [await device(), await device()];
    const e0 = signEntry(USER, undefined, "add", a.member, a.signer);
    const e1 = signEntry(USER, { seq: 0, hash: entryHash(USER, e0) }, "add", b.member, a.signer);
    const e2 = signEntry(USER, { seq: 1, hash: entryHash(USER, e1) }, "remove", b.member, a.signer);
    const again = signEntry(USER, { seq: 2, hash: entryHash(USER, e2) }, "add", b.member, a.signer);
    expect(refused(() => verifyDeviceList(USER, [e0, e1, e2, again]))).toBe(DEVICE_LIST_TEXT.readded);
  });

  it("refuses a list that does not hold the pinned head: an older list, or another one", async () => {
    const [a, b] = [await device(), await device()];
    const e0 = signEntry(USER, undefined, "add", a.member, a.signer);
    const e1 = signEntry(USER, { seq: 0, hash: entryHash(USER, e0) }, "add", b.member, a.signer);
    const pinned = { seq: 1, hash: entryHash(USER, e1) };
    expect(refused(() => verifyDeviceList(USER, [e0], pinned))).toBe(DEVICE_LIST_TEXT.notExtended);
    expect(refused(() => verifyDeviceList(USER, [], pinned))).toBe(DEVICE_LIST_TEXT.notExtended);
    const other = signEntry(USER, { seq: 0, hash: entryHash(USER, e0) }, "remove", a.member, a.signer);
    expect(refused(() => verifyDeviceList(USER, [e0, other], pinned))).toBe(DEVICE_LIST_TEXT.notExtended);
  });

  it("gives each device a security code of three groups of four digits, the same for the same keys", async () => {
    const { member } = await device();
    expect(securityCode(member)).toMatch(/^\d{4} \d{4} \d{4}$/);
    expect(securityCode({ ...member })).toBe(securityCode(member));
    expect(securityCode({ ...member, signingKey: makeSigningKey().publicKey })).not.toBe(securityCode(member));
  });
});
