import { describe, expect, it } from "vitest";
import { checkCode, checkCommitment, makeCheckNonce, verifyCheckCommitment } from "./check-code.ts";
import { concatBytes, fromBase64Url, toBase64Url, utf8 } from "./encoding.ts";

const filled = (byte: number) => toBase64Url(new Uint8Array(32).fill(byte));
const input = {
  requestId: "r_1",
  requesterPublicKey: filled(1),
  approverPublicKey: filled(2),
  requesterNonce: filled(3),
  approverNonce: filled(4),
};

describe("check code", () => {
  it("is six digits from SHA-256 over the request id, both keys and both nonces, shown 123 456", async () => {
    expect(await checkCode(input)).toBe("746 076");
    const digest = new Uint8Array(
      await crypto.subtle.digest(
        "SHA-256",
        concatBytes(utf8("daysync/v1/check"), utf8("r_1"), ...[1, 2, 3, 4].map((byte) => new Uint8Array(32).fill(byte))),
      ),
    );
    const expected = (new DataView(digest.buffer).getBigUint64(0) % 1_000_000n).toString().padStart(6, "0");
    expect((await checkCode(input)).replace(" ", "")).toBe(expected);
  });

  it("changes with every input, and the nonces are not interchangeable", async () => {
    const code = await checkCode(input);
    for (const change of [
      { requestId: "r_2" },
      { approverPublicKey: filled(5) },
      { requesterNonce: filled(4), approverNonce: filled(3) },
      { requesterPublicKey: filled(2), approverPublicKey: filled(1) },
    ]) {
      expect(await checkCode({ ...input, ...change }), JSON.stringify(change)).not.toBe(code);
    }
    for (let i = 0; i < 20; i++) expect(await checkCode({ ...input, approverNonce: makeCheckNonce() })).toMatch(/^\d{3} \d{3}$/);
  });

  it("commits to a key and nonce, and refuses another nonce, another key or garbage", async () => {
    const nonce = makeCheckNonce();
    expect(fromBase64Url(nonce)).toHaveLength(32);
    const commitment = await checkCommitment(filled(1), nonce);
    const expected = await crypto.subtle.digest(
      "SHA-256",
      concatBytes(utf8("daysync/v1/commit"), new Uint8Array(32).fill(1), fromBase64Url(nonce)),
    );
    expect(commitment).toBe(toBase64Url(new Uint8Array(expected)));
    expect(await verifyCheckCommitment(commitment, filled(1), nonce)).toBe(true);
    expect(await verifyCheckCommitment(commitment, filled(1), makeCheckNonce())).toBe(false);
    expect(await verifyCheckCommitment(commitment, filled(2), nonce)).toBe(false);
    expect(await verifyCheckCommitment(commitment, filled(1), "not a nonce")).toBe(false);
  });
});
