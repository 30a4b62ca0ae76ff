import { describe, expect, it } from "vitest";
import { renameDeviceSchema } from "./devices.ts";
import { createDiscussionSchema, displayNameKey, joinDiscussionSchema, renameDiscussionSchema } from "./discussions.ts";
import { pairClientMessageSchema, pairingExchangeSchema } from "./pairing.ts";
import { loginSchema, registerFormSchema, searchQuerySchema, sendMessageSchema, uploadMetadataSchema } from "./schemas.ts";
import { chosenName, hasNoBidiControls, isWellFormed, text } from "./text.ts";

const BIDI_CONTROLS = [..."\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u061C"];
const HALF = "\ud83d";

/** The first problem as the server's 400 names it: its field and message. */
const firstIssue = (result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) => {
  const issue = result.error?.issues[0];
  return issue && { field: issue.path.join("."), message: issue.message };
};

describe("isWellFormed", () => {
  it("finds half a character, either half, anywhere, and accepts whole pairs", () => {
    for (const broken of ["\ud800", "\udfff", `a${HALF}`, `${HALF}b`, "\ude00\ud83d", `\ud83d\ude00${HALF}`]) {
      expect(isWellFormed(broken), JSON.stringify(broken)).toBe(false);
    }
    for (const fine of ["", "plain", "\ud83d\ude00", "日本語", "\uFFFD", "e\u0301"]) expect(isWellFormed(fine)).toBe(true);
  });

  it("agrees with String.prototype.isWellFormed (Node 20 has it; the app's older browsers do not)", () => {
    const { isWellFormed: native } = String.prototype as unknown as { isWellFormed: (this: string) => boolean };
    for (const s of ["\ud800", "a\udc00b", "\ud83d\ude00", "ok", "\ude00\ud83d"]) expect(isWellFormed(s)).toBe(native.call(s));
  });
});

describe("hasNoBidiControls", () => {
  it("finds every bidirectional control and nothing else", () => {
    for (const control of BIDI_CONTROLS) expect(hasNoBidiControls(`a${control}b`), control.codePointAt(0)?.toString(16)).toBe(false);
    // Right-to-left letters, joiners and other invisible characters are not direction controls.
    for (const fine of ["שלום", "مرحبا", "a\u200db", "a\u200bb", "\u2060", "\u202F", "\u2065"]) expect(hasNoBidiControls(fine)).toBe(true);
  });
});

describe("text() and chosenName()", () => {
  it("refuse half a character and NUL, naming what they are", () => {
    const schema = text("A note");
    expect(schema.safeParse(`x${HALF}`).error?.issues[0]?.message).toBe(
      "A note must be valid text: it holds half of a character (a lone surrogate).",
    );
    expect(schema.safeParse("x\u0000").error?.issues[0]?.message).toBe("A note must not contain the NUL character (U+0000).");
    expect(schema.parse("fine \ud83d\ude00")).toBe("fine \ud83d\ude00");
    expect(text("A note", "Write a note.").safeParse(undefined).error?.issues[0]?.message).toBe("Write a note.");
  });

  it("chosenName() also refuses bidirectional controls, and text() lets them through", () => {
    for (const control of BIDI_CONTROLS) {
      expect(chosenName("A name").safeParse(`exe${control}.txt`).error?.issues[0]?.message).toBe(
        "A name must not contain Unicode direction controls (such as U+202E): they can make it read as something it is not.",
      );
      expect(text("A message").safeParse(`rtl ${control} text`).success).toBe(true);
    }
    expect(chosenName("A name").safeParse(`x${HALF}`).success).toBe(false);
  });
});

describe("every name schema refuses bidirectional controls, naming its field", () => {
  const name = "Ann\u202Egnp.exe";
  const account = { name, email: "a@b.co", password: "p", confirm_password: "p" };
  const upload = { filename: name, message_id: crypto.randomUUID(), date: "1/2/2026", time: "9:05 PM" };
  it.each([
    ["account name", registerFormSchema, account, "name", "A name"],
    ["device name", renameDeviceSchema, { name }, "name", "A device name"],
    ["discussion title", createDiscussionSchema, { title: name, display_name: "Ann" }, "title", "A title"],
    ["new title", renameDiscussionSchema, { title: name }, "title", "A title"],
    ["creator's display name", createDiscussionSchema, { title: "Trip", display_name: name }, "display_name", "A display name"],
    ["display name", joinDiscussionSchema, { display_name: name }, "display_name", "A display name"],
    ["file name", uploadMetadataSchema, upload, "filename", "filename"],
  ] as const)("%s", (_kind, schema, input, field, what) => {
    expect(firstIssue(schema.safeParse(input))).toEqual({
      field,
      message: `${what} must not contain Unicode direction controls (such as U+202E): they can make it read as something it is not.`,
    });
  });
});

describe("every text of a request refuses half a character, naming its field", () => {
  const secret = "s".repeat(20);
  it.each([
    ["message", sendMessageSchema, { id: crypto.randomUUID(), content: `hi ${HALF}`, date: "1/2/2026", time: "9:05 PM" }, "content"],
    ["account name", registerFormSchema, { name: HALF, email: "a@b.co", password: "p", confirm_password: "p" }, "name"],
    ["password", loginSchema, { email: "a@b.co", password: `p${HALF}` }, "password"],
    ["display name", joinDiscussionSchema, { display_name: `Bob${HALF}` }, "display_name"],
    ["title", renameDiscussionSchema, { title: HALF }, "title"],
    ["device name", renameDeviceSchema, { name: `phone${HALF}` }, "name"],
    ["search", searchQuerySchema, { q: `find ${HALF}` }, "q"],
    [
      "file type",
      uploadMetadataSchema,
      { filename: "a.txt", filetype: HALF, message_id: crypto.randomUUID(), date: "1/2/2026", time: "9:05 PM" },
      "filetype",
    ],
    ["pairing token", pairingExchangeSchema, { request_id: crypto.randomUUID(), secret, token: HALF.repeat(20) }, "token"],
    [
      "pairing socket's secret",
      pairClientMessageSchema,
      { type: "wait", request_id: crypto.randomUUID(), secret: `${secret}${HALF}` },
      "secret",
    ],
  ] as const)("%s", (_kind, schema, input, field) => {
    const result = schema.safeParse(input);
    expect(result.success).toBe(false);
    expect(firstIssue(result)?.field).toBe(field);
  });
});

describe("displayNameKey", () => {
  it("is the same for names that look the same: case, spaces, full width, styled letters, invisible characters", () => {
    const key = displayNameKey("Ann Lee");
    for (const lookalike of [
      "ann lee",
      " ANN  LEE ",
      "AnnLee",
      "Ann\u00a0Lee",
      "Ann\tLee",
      "\uff21nn Lee",
      "\ud835\udc00nn Lee",
      "Ann\u200bLee",
      "Ann\u00adLee",
    ]) {
      expect(displayNameKey(lookalike), JSON.stringify(lookalike)).toBe(key);
    }
    expect(displayNameKey("Straße")).toBe(displayNameKey("STRASSE"));
  });

  it("differs for names that differ", () => {
    expect(displayNameKey("Ann")).not.toBe(displayNameKey("Anne"));
    expect(displayNameKey("Zoë")).not.toBe(displayNameKey("Zoe"));
  });
});
