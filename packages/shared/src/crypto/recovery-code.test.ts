import { describe, expect, it } from "vitest";
import { exportPublicKey, generateDeviceKeyPair } from "./device-key.ts";
import { makeEpochKey } from "./epoch-keys.ts";
import { UndecryptableError } from "./errors.ts";
import {
  deriveRecoveryKeys,
  makeRecoveryCode,
  openRecoveryAnchor,
  parseRecoveryCode,
  RecoveryCodeError,
  recoveryCodeFromSecret,
  sealRecoveryAnchor,
} from "./recovery-code.ts";
import { openEpochKey, wrapEpochKey } from "./wraps.ts";

const CODE = "007H-WB9W-9DD6-JY47-JTJV-9GYJ-W7N4";
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

async function reasonOf(text: string): Promise<string | undefined> {
  try {
    await parseRecoveryCode(text);
    return undefined;
  } catch (error) {
    return error instanceof RecoveryCodeError ? error.reason : "other";
  }
}

describe("recovery code", () => {
  it("is 28 Crockford base32 characters in 7 groups of 4, from 130 bits and a 10-bit check", async () => {
    expect(await recoveryCodeFromSecret(new Uint8Array(17).map((_, i) => i * 15))).toBe(CODE);
    const code = await makeRecoveryCode();
    expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){6}$/);
    expect(code).not.toBe(await makeRecoveryCode());
    expect(await parseRecoveryCode(code)).toBe(code);
  });

  it("reads lower case, spaces, hyphens anywhere, I and L as 1, O as 0", async () => {
    const typed = ` ${CODE.toLowerCase().replace(/-/g, " ").replace(/0/g, "o").replace(/1/g, "l")} `;
    expect(await parseRecoveryCode(typed)).toBe(CODE);
    expect(await parseRecoveryCode(CODE.replace(/-/g, ""))).toBe(CODE);
  });

  it("catches every single wrong character of this code, a wrong length and a character not in the alphabet", async () => {
    const chars = CODE.replace(/-/g, "");
    for (let at = 0; at < chars.length; at++) {
      const wrong = ALPHABET[(ALPHABET.indexOf(chars[at] ?? "0") + 1) % 32];
      expect(await reasonOf(`${chars.slice(0, at)}${wrong}${chars.slice(at + 1)}`), `position ${at}`).toBe("check");
    }
    expect(await reasonOf(chars.slice(1))).toBe("length");
    expect(await reasonOf(`${chars}0`)).toBe("length");
    expect(await reasonOf(`U${chars.slice(1)}`)).toBe("character");
  });

  it("derives the same recovery key pair and anchor key for the same code and user, others for another user", async () => {
    const a = await deriveRecoveryKeys(CODE, "u_1");
    const b = await deriveRecoveryKeys(CODE.toLowerCase(), "u_1");
    const c = await deriveRecoveryKeys(CODE, "u_2");
    expect(await exportPublicKey(a.keyPair.publicKey)).toBe(await exportPublicKey(b.keyPair.publicKey));
    expect(await exportPublicKey(a.keyPair.publicKey)).not.toBe(await exportPublicKey(c.keyPair.publicKey));

    const epochKey = makeEpochKey();
    const anchor = await sealRecoveryAnchor(a.anchorKey, { userId: "u_1", epoch: 4 }, epochKey);
    expect(await openRecoveryAnchor(b.anchorKey, { userId: "u_1", epoch: 4 }, anchor)).toEqual(epochKey);
    for (const [key, place] of [
      [c.anchorKey, { userId: "u_1", epoch: 4 }],
      [b.anchorKey, { userId: "u_1", epoch: 5 }],
      [b.anchorKey, { userId: "u_2", epoch: 4 }],
    ] as const) {
      await expect(openRecoveryAnchor(key, place, anchor)).rejects.toThrow(UndecryptableError);
    }
    await expect(openRecoveryAnchor(b.anchorKey, { userId: "u_1", epoch: 4 }, "!!")).rejects.toThrow(UndecryptableError);
  });

  it("opens the auth-mode wrap a device made for the recovery key", async () => {
    const device = await generateDeviceKeyPair();
    const epochKey = makeEpochKey();
    const place = { userId: "u_1", epoch: 5 };
    const { keyPair } = await deriveRecoveryKeys(CODE, "u_1");
    const wrap = await wrapEpochKey(epochKey, place, keyPair.publicKey, { mode: "auth", senderKeyPair: device });
    const fresh = await deriveRecoveryKeys(CODE, "u_1");
    expect(await openEpochKey(wrap, place, fresh.keyPair, { mode: "auth", senderPublicKey: device.publicKey })).toEqual(epochKey);
  });
});
