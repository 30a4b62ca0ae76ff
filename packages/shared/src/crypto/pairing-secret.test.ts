import { describe, expect, it } from "vitest";
import { exportPublicKey, generateDeviceKeyPair } from "./device-key.ts";
import { fromBase64Url, toBase64Url } from "./encoding.ts";
import { derivePairingKeys, keyProof, makePairingSecret, pairingPskId, verifyKeyProof } from "./pairing-secret.ts";

describe("pairing secret", () => {
  it("is 32 random bytes for the link's fragment, giving the same psk on both devices", async () => {
    const secret = makePairingSecret();
    expect(fromBase64Url(secret)).toHaveLength(32);
    expect(secret).not.toBe(makePairingSecret());
    const [a, b] = await Promise.all([derivePairingKeys(secret), derivePairingKeys(secret)]);
    expect(a.psk).toHaveLength(32);
    expect(a.psk).toEqual(b.psk);
    expect((await derivePairingKeys(makePairingSecret())).psk).not.toEqual(a.psk);
    await expect(derivePairingKeys(toBase64Url(new Uint8Array(16)))).rejects.toThrow(TypeError);
    expect(pairingPskId("p_42")).toBe("daysync/v1/pair|p_42");
  });

  it("proves the new device's public key to the holder of the same secret, and to no one else", async () => {
    const secret = makePairingSecret();
    const newDevice = await derivePairingKeys(secret);
    const approver = await derivePairingKeys(secret);
    const publicKey = await exportPublicKey((await generateDeviceKeyPair()).publicKey);
    const proof = await keyProof(newDevice.mac, publicKey);
    expect(fromBase64Url(proof)).toHaveLength(32);
    expect(await verifyKeyProof(approver.mac, publicKey, proof)).toBe(true);

    const swapped = await exportPublicKey((await generateDeviceKeyPair()).publicKey);
    expect(await verifyKeyProof(approver.mac, swapped, proof)).toBe(false);
    expect(await verifyKeyProof((await derivePairingKeys(makePairingSecret())).mac, publicKey, proof)).toBe(false);
    expect(await verifyKeyProof(approver.mac, publicKey, "%%%")).toBe(false);
  });
});
