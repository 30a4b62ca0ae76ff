import { describe, expect, it } from "vitest";
import { MAX_MESSAGE_LENGTH } from "./schemas.ts";
import { composeSharedText, SHARED_TEXT_LIMIT } from "./share-target.ts";

describe("composeSharedText", () => {
  it("keeps title, text and link in that order", () => {
    expect(composeSharedText({ title: "Lemon pasta", text: "Try this", url: "https://example.com/pasta" })).toBe(
      "Lemon pasta\nTry this\nhttps://example.com/pasta",
    );
  });

  it("drops a link that is already in the text, and a title repeated in the text", () => {
    expect(composeSharedText({ title: "", text: "Look https://example.com/a", url: "https://example.com/a" })).toBe(
      "Look https://example.com/a",
    );
    expect(composeSharedText({ title: "Gate B32", text: "Gate B32", url: null })).toBe("Gate B32");
  });

  it("gives an empty text when nothing was shared but files", () => {
    expect(composeSharedText({ title: " ", text: null })).toBe("");
  });
});

describe("SHARED_TEXT_LIMIT", () => {
  it("is the message length limit", () => {
    expect(SHARED_TEXT_LIMIT).toBe(MAX_MESSAGE_LENGTH);
  });
});
