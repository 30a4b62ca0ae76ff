import { describe, expect, it } from "vitest";
import { type ClipboardSnapshot, readSteadily } from "./clipboard-tools.ts";

const HINT = "x-kde-passwordManagerHint";

/** A clipboard whose owner changes while it is read: each call to `types` answers the next list. */
function changingOwner(lists: string[][], texts: string[]) {
  let typesAsked = 0;
  let contentsRead = 0;
  return {
    types: async () => lists[Math.min(typesAsked++, lists.length - 1)] ?? [],
    contents: async (offered: string[]): Promise<ClipboardSnapshot> => ({
      text: texts[Math.min(contentsRead++, texts.length - 1)] ?? null,
      image: null,
      concealed: offered.includes(HINT),
    }),
    reads: () => contentsRead,
  };
}

describe("reading the clipboard while another program copies", () => {
  it("a password manager's copy made between the types and the text is concealed (CI saw it sent)", async () => {
    // An ordinary copy's types, then the secret's text once the password manager took the clipboard, then its types.
    const clipboard = changingOwner(
      [["UTF8_STRING"], ["UTF8_STRING", HINT], ["UTF8_STRING", HINT]],
      ["hunter2 concealed", "hunter2 concealed"],
    );
    const read = await readSteadily(clipboard.types, clipboard.contents);
    expect(read).toEqual({ text: "hunter2 concealed", image: null, concealed: true });
    expect(clipboard.reads()).toBe(2);
  });

  it("types that hold still are read once around one read of the contents", async () => {
    const clipboard = changingOwner([["UTF8_STRING"]], ["an ordinary copy"]);
    expect(await readSteadily(clipboard.types, clipboard.contents)).toEqual({ text: "an ordinary copy", image: null, concealed: false });
    expect(clipboard.reads()).toBe(1);
  });

  it("a clipboard that keeps changing is read three times at most, and a mark seen last still conceals", async () => {
    const clipboard = changingOwner([["A"], ["B"], ["C"], ["D", HINT]], ["1", "2", "3"]);
    const read = await readSteadily(clipboard.types, clipboard.contents);
    expect(read.concealed).toBe(true);
    expect(clipboard.reads()).toBe(3);
  });
});
