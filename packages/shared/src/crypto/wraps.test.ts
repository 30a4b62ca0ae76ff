import { Aes128Gcm, CipherSuite, DhkemX25519HkdfSha256, HkdfSha256 } from "@hpke/core";
import { describe, expect, it } from "vitest";
import { exportDeviceKeyPair, exportPublicKey, generateDeviceKeyPair, importDeviceKeyPair, importPublicKey, keyId } from "./device-key.ts";
import { type Bytes, fromBase64Url, toBase64Url } from "./encoding.ts";
import { makeEpochKey } from "./epoch-keys.ts";
import { UndecryptableError } from "./errors.ts";
import { derivePairingKeys, makePairingSecret, pairingPskId } from "./pairing-secret.ts";
import { hpkeSuite } from "./suite.ts";
import { openEpochKey, wrapEpochKey } from "./wraps.ts";

const hex = (text: string): Bytes => new Uint8Array(text.match(/../g)?.map((byte) => Number.parseInt(byte, 16)) ?? []);
const place = { userId: "u_1", epoch: 3 };

describe("device keys", () => {
  it("keeps the private key non-extractable and exports the public key as 32 raw bytes", async () => {
    const pair = await generateDeviceKeyPair();
    await expect(crypto.subtle.exportKey("pkcs8", pair.privateKey)).rejects.toThrow();
    await expect(crypto.subtle.exportKey("jwk", pair.privateKey)).rejects.toThrow();
    const publicKey = await exportPublicKey(pair.publicKey);
    expect(fromBase64Url(publicKey)).toHaveLength(32);
    expect(await exportPublicKey(await importPublicKey(publicKey))).toBe(publicKey);
  });

  it("names a key by base64url of the first 16 bytes of SHA-256 of its raw bytes", async () => {
    const raw = new Uint8Array(32).fill(9);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", raw));
    expect(await keyId(toBase64Url(raw))).toBe(toBase64Url(digest.subarray(0, 16)));
    const pair = await generateDeviceKeyPair();
    expect(await keyId(pair.publicKey)).toBe(await keyId(await exportPublicKey(pair.publicKey)));
  });

  it("stores the CLI's pair as PKCS#8 and imports it back non-extractable", async () => {
    const stored = await exportDeviceKeyPair(await generateDeviceKeyPair({ extractable: true }));
    const pair = await importDeviceKeyPair(stored);
    await expect(crypto.subtle.exportKey("pkcs8", pair.privateKey)).rejects.toThrow();
    const epochKey = makeEpochKey();
    const sender = await generateDeviceKeyPair();
    const wrap = await wrapEpochKey(epochKey, place, await importPublicKey(stored.publicKey), { mode: "auth", senderKeyPair: sender });
    expect(await openEpochKey(wrap, place, pair, { mode: "auth", senderPublicKey: sender.publicKey })).toEqual(epochKey);
  });

  it("refuses a public key of the wrong length", async () => {
    await expect(importPublicKey(toBase64Url(new Uint8Array(31)))).rejects.toThrow(TypeError);
  });
});

describe("wraps", () => {
  it("hands an epoch key over in psk mode, and a wrong psk, psk id, epoch or user does not open it", async () => {
    const { psk } = await derivePairingKeys(makePairingSecret());
    const recipient = await generateDeviceKeyPair();
    const epochKey = makeEpochKey();
    const pskId = pairingPskId("p_9");
    const wrap = await wrapEpochKey(epochKey, place, recipient.publicKey, { mode: "psk", psk, pskId });
    expect(await openEpochKey(wrap, place, recipient, { mode: "psk", psk, pskId })).toEqual(epochKey);

    const otherPsk = (await derivePairingKeys(makePairingSecret())).psk;
    const stranger = await generateDeviceKeyPair();
    // Each attempt starts only when it is awaited: one rejecting while another is set up would go unhandled.
    const refused = [
      () => openEpochKey(wrap, place, recipient, { mode: "psk", psk: otherPsk, pskId }),
      () => openEpochKey(wrap, place, recipient, { mode: "psk", psk, pskId: pairingPskId("p_8") }),
      () => openEpochKey(wrap, { ...place, epoch: 4 }, recipient, { mode: "psk", psk, pskId }),
      () => openEpochKey(wrap, { ...place, userId: "u_2" }, recipient, { mode: "psk", psk, pskId }),
      () => openEpochKey(wrap, place, stranger, { mode: "psk", psk, pskId }),
    ];
    for (const attempt of refused) await expect(attempt()).rejects.toThrow(UndecryptableError);
  });

  it("hands an epoch key over in auth mode, and refuses a wrap from any other sender key", async () => {
    const sender = await generateDeviceKeyPair();
    const recipient = await generateDeviceKeyPair();
    const epochKey = makeEpochKey();
    const wrap = await wrapEpochKey(epochKey, place, recipient.publicKey, { mode: "auth", senderKeyPair: sender });
    expect(await openEpochKey(wrap, place, recipient, { mode: "auth", senderPublicKey: sender.publicKey })).toEqual(epochKey);

    const impostor = await generateDeviceKeyPair();
    await expect(openEpochKey(wrap, place, recipient, { mode: "auth", senderPublicKey: impostor.publicKey })).rejects.toThrow(
      UndecryptableError,
    );
    const forged = await wrapEpochKey(makeEpochKey(), place, recipient.publicKey, { mode: "auth", senderKeyPair: impostor });
    await expect(openEpochKey(forged, place, recipient, { mode: "auth", senderPublicKey: sender.publicKey })).rejects.toThrow(
      UndecryptableError,
    );
  });

  it("refuses a flipped byte in enc or ciphertext, and garbage", async () => {
    const sender = await generateDeviceKeyPair();
    const recipient = await generateDeviceKeyPair();
    const wrap = await wrapEpochKey(makeEpochKey(), place, recipient.publicKey, { mode: "auth", senderKeyPair: sender });
    const flip = (text: string) => {
      const bytes = fromBase64Url(text);
      bytes[5] = (bytes[5] ?? 0) ^ 1;
      return toBase64Url(bytes);
    };
    const opener = { mode: "auth", senderPublicKey: sender.publicKey } as const;
    for (const bad of [
      { ...wrap, enc: flip(wrap.enc) },
      { ...wrap, ciphertext: flip(wrap.ciphertext) },
      { enc: "!", ciphertext: "" },
    ]) {
      await expect(openEpochKey(bad, place, recipient, opener)).rejects.toThrow(UndecryptableError);
    }
  });

  it("opens wraps recorded once with this code (fixture: keys derived from fixed bytes)", async () => {
    const kem = hpkeSuite().kem;
    const recipient = await kem.deriveKeyPair(new Uint8Array(32).fill(1));
    const sender = await kem.deriveKeyPair(new Uint8Array(32).fill(2));
    expect(await exportPublicKey(recipient.publicKey)).toBe("QYUjIP82dJX6UiyUy4OvOR5OiQGDknJbvyCY3ZMbxCQ");
    expect(await exportPublicKey(sender.publicKey)).toBe("YIC75RAF6prMhjWAzlcxfUa-9jM1WNW_qX5GE0KYUAU");
    const fixturePlace = { userId: "u_fixture", epoch: 7 };
    const epochKey = new Uint8Array(32).map((_, i) => i);
    const auth = {
      enc: "MXQz0BywQBc5QMw5gbqZ83LpA4_qo7oSadWvXBva_E8",
      ciphertext: "-DZ-8yN5zLj8lNW94JBFlop0lr9XPTMGcgteXQVMhyBcO2NSGSwt79fzg3iKMsbL",
    };
    const psk = {
      enc: "jTX7aqjLex7jkOGOWIgj8AD3-Rr2fcAp_5e4QuTK_Rw",
      ciphertext: "L6MPqBkcI-hKW00kTc0klwm7YyiMU1oLfs1tH-nzmccVP9NjzazsN74UTLMmaDSu",
    };
    expect(await openEpochKey(auth, fixturePlace, recipient, { mode: "auth", senderPublicKey: sender.publicKey })).toEqual(epochKey);
    expect(
      await openEpochKey(psk, fixturePlace, recipient, { mode: "psk", psk: new Uint8Array(32).fill(3), pskId: "daysync/v1/pair|42" }),
    ).toEqual(epochKey);
  });

  // RFC 9180 has no DHKEM(X25519)/HKDF-SHA256/AES-256-GCM vector; A.1.2 differs from our suite only in the AEAD,
  // so it pins @hpke/core's X25519 DHKEM, DeriveKeyPair and psk key schedule as we use them.
  it("reproduces RFC 9180 A.1.2 (DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, AES-128-GCM, psk mode), sequence 0", async () => {
    const suite = new CipherSuite({ kem: new DhkemX25519HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes128Gcm() });
    const recipient = await suite.kem.deriveKeyPair(hex("d4a09d09f575fef425905d2ab396c1449141463f698f8efdb7accfaff8995098"));
    expect(toHex(new Uint8Array(await suite.kem.serializePublicKey(recipient.publicKey)))).toBe(
      "9fed7e8c17387560e92cc6462a68049657246a09bfa8ade7aefe589672016366",
    );
    const psk = {
      key: hex("0247fd33b913760fa1fa51e1892d9f307fbe65eb171e8132c2af18555a738b82"),
      id: hex("456e6e796e20447572696e206172616e204d6f726961"),
    };
    const info = hex("4f6465206f6e2061204772656369616e2055726e");
    const plaintext = hex("4265617574792069732074727574682c20747275746820626561757479");
    const aad = hex("436f756e742d30");
    const sealed = await suite.seal(
      { recipientPublicKey: recipient.publicKey, info, psk, ekm: hex("78628c354e46f3e169bd231be7b2ff1c77aa302460a26dbfa15515684c00130b") },
      plaintext,
      aad,
    );
    expect(toHex(new Uint8Array(sealed.enc))).toBe("0ad0950d9fb9588e59690b74f1237ecdf1d775cd60be2eca57af5a4b0471c91b");
    expect(toHex(new Uint8Array(sealed.ct))).toBe(
      "e52c6fed7f758d0cf7145689f21bc1be6ec9ea097fef4e959440012f4feb73fb611b946199e681f4cfc34db8ea",
    );
    const skRm = await suite.kem.importKey("raw", hex("c5eb01eb457fe6c6f57577c5413b931550a162c71a03ac8d196babbd4e5ce0fd").buffer, false);
    const opened = await suite.open(
      { recipientKey: { privateKey: skRm, publicKey: recipient.publicKey }, enc: sealed.enc, info, psk },
      sealed.ct,
      aad,
    );
    expect(new Uint8Array(opened)).toEqual(plaintext);
  });
});

function toHex(bytes: Uint8Array): string {
  return [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}
