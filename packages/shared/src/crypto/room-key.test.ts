import { hkdf } from "@noble/hashes/hkdf.js";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { describe, expect, it } from "vitest";
import { ROOM_TEXT } from "../ui-text.ts";
import { toBase64Url, utf8 } from "./encoding.ts";
import { ROOM_ID } from "./room-fixtures.ts";
import { deriveRoomKeys, makeRoomKey, memberKeyOf, memberSecurityCode, nameTag } from "./room-key.ts";
import { addressWithoutFragment, keyForRoom, parseRoomLink, roomFragment } from "./room-link.ts";
import { memberEncoding, tagMember } from "./room-members.ts";
import { roomValueAad } from "./room-sealing.ts";

const roomKey = new Uint8Array(32).map((_, i) => i);
const seed = new Uint8Array(32).map((_, i) => 255 - i);

/** The protocol text's formulas, computed with @noble/hashes rather than the WebCrypto code under test. */
function independentTag(info: string, message: string): string {
  const subkey = hkdf(sha256, roomKey, utf8(`daysync/v1/room|${ROOM_ID}|3`), utf8(info), 32);
  return toBase64Url(hmac(sha256, subkey, utf8(message)));
}

describe("room keys: fixed vectors", () => {
  it("tags a display name as the protocol text says, folded as the server folds names", async () => {
    const keys = await deriveRoomKeys(roomKey, ROOM_ID, 3);
    const expected = independentTag("daysync/v1/room/name-tag", "daysync/v1/room-name|cleo");
    expect(expected).toBe("_f01qkXtp0uMrHlrlGM7dKvaU76mqqDG9yZfdfUcvoU");
    expect(await nameTag(keys, "Cleo")).toBe(expected);
    expect(await nameTag(keys, "ＣＬＥＯ ")).toBe(expected);
    expect(await nameTag(keys, "Cle0")).not.toBe(expected);
    expect(await nameTag(await deriveRoomKeys(roomKey, ROOM_ID, 4), "Cleo")).not.toBe(expected);
  });

  it("derives a member's key from its seed, its security code, and tags its entry under the roster key", async () => {
    const member = await memberKeyOf(seed);
    expect(member.publicKey).toBe("_ULUF2W4S-w8EyHLdDohqRxRXKAO6c7E4pjhnwIXgSw");
    expect(member.keyId).toBe("6gaI_MRNeBZTJymeJJYzzA");
    expect(await memberSecurityCode(ROOM_ID, member.publicKey)).toBe("2885 5190 0590");
    const keys = await deriveRoomKeys(roomKey, ROOM_ID, 3);
    const entry = {
      keyId: member.keyId,
      publicKey: member.publicKey,
      nameTag: "t",
      addedBy: null,
      admission: "creator" as const,
      admissionId: "",
    };
    const text = `daysync/v1/room-roster|${ROOM_ID}|3|${member.keyId}|${member.publicKey}|t||creator|`;
    expect(memberEncoding(keys, entry)).toBe(text);
    expect((await tagMember(keys, entry)).tag).toBe(independentTag("daysync/v1/room/roster", text));
  });

  it("builds a value's associated data with the room, the generation and the sender member", () => {
    const place = { field: "content" as const, messageId: "m1", type: "text", date: "2026-12-05", time: "9:05 AM", senderKeyId: "k1" };
    expect(new TextDecoder().decode(roomValueAad({ roomId: ROOM_ID, generation: 2 }, place))).toBe(
      `daysync/v1/room|content|${ROOM_ID}|2|m1|text|2026-12-05|9:05 AM|k1`,
    );
    expect(() => roomValueAad({ roomId: ROOM_ID, generation: 2 }, { ...place, messageId: "m|1" })).toThrow(TypeError);
  });

  it("refuses a room id that is not the server's UUID, a generation below 1, a key of another length", async () => {
    await expect(deriveRoomKeys(roomKey, "not-a-room", 1)).rejects.toThrow(TypeError);
    await expect(deriveRoomKeys(roomKey, ROOM_ID, 0)).rejects.toThrow(TypeError);
    await expect(deriveRoomKeys(roomKey.subarray(1), ROOM_ID, 1)).rejects.toThrow(TypeError);
  });
});

describe("room links", () => {
  const key = makeRoomKey();
  const base = "https://daysync.example/discussions/join/ABCDE-FGHJK";

  it("carries the room, the generation and the key in the fragment, and gives the address without it", () => {
    const fragment = roomFragment({ roomId: ROOM_ID, generation: 2, roomKey: key });
    expect(fragment).toBe(`#room=${ROOM_ID}&g=2&k=${toBase64Url(key)}`);
    const link = parseRoomLink(`${base}${fragment}`);
    expect(link).toEqual({ roomId: ROOM_ID, generation: 2, roomKey: key });
    expect(parseRoomLink(fragment)).toEqual(link);
    expect(addressWithoutFragment(`${base}${fragment}`)).toBe(base);
    expect(addressWithoutFragment(base)).toBe(base);
  });

  it.each([
    ["no fragment", base],
    ["the key cut", `#room=${ROOM_ID}&g=2&k=${toBase64Url(key).slice(0, 40)}`],
    ["a key not base64url", `#room=${ROOM_ID}&g=2&k=${toBase64Url(key).slice(0, 42)}+`],
    ["no generation", `#room=${ROOM_ID}&k=${toBase64Url(key)}`],
    ["generation 0", `#room=${ROOM_ID}&g=0&k=${toBase64Url(key)}`],
    ["another room id form", `#room=ABCDE&g=1&k=${toBase64Url(key)}`],
    ["a field more", `#room=${ROOM_ID}&g=1&k=${toBase64Url(key)}&x=1`],
    ["fields in another order", `#g=1&room=${ROOM_ID}&k=${toBase64Url(key)}`],
  ])("refuses %s with the sentence a person sees", (_, address) => {
    expect(() => parseRoomLink(address)).toThrow(ROOM_TEXT.linkDamaged);
  });

  it("gives its key only to the discussion it was made for", () => {
    const link = parseRoomLink(roomFragment({ roomId: ROOM_ID, generation: 1, roomKey: key }));
    expect(keyForRoom(link, ROOM_ID)).toBe(link);
    expect(() => keyForRoom(link, "7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f")).toThrow(ROOM_TEXT.linkOtherRoom);
  });
});
