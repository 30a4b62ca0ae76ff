import { describe, expect, it } from "vitest";
import { swayBinding } from "./hotkey-bindings.ts";
import { hotkeyLabel, parseHotkey } from "./hotkey-keys.ts";

const parsed = (keys: string | true) => {
  const result = parseHotkey(keys);
  if (!result.ok) throw new Error(result.message);
  return result.hotkey;
};
const refused = (keys: string) => {
  const result = parseHotkey(keys);
  return result.ok ? "" : result.message;
};

describe("--hotkey KEYS", () => {
  it("reads modifiers and one key, in any case, with Ctrl+Alt+D by default", () => {
    expect(parsed(true)).toEqual({ modifiers: ["ctrl", "alt"], key: "D", keysym: 0x64, xkb: "d" });
    expect(parsed("control+ALT+d")).toEqual(parsed("Ctrl+Alt+D"));
    expect(parsed("Super+Shift+F9")).toMatchObject({ modifiers: ["super", "shift"], key: "F9", keysym: 0xffc6 });
    expect(parsed("F12").modifiers).toEqual([]);
    expect(hotkeyLabel(parsed("win + pageup"))).toBe("Super+PageUp");
    expect(swayBinding(parsed("Super+Shift+PageUp"))).toBe("bindsym Mod4+Shift+Page_Up exec daysync send --clipboard");
  });

  it("refuses what is no shortcut, saying why", () => {
    expect(refused("Ctrl+Alt")).toContain("has no key");
    expect(refused("Ctrl++D")).toContain("has an empty part");
    expect(refused("Ctrl+Alt+Banana")).toContain('names a key it does not know, "Banana"');
    expect(refused("Ctrl+Q+D")).toContain('has "Q" where a modifier goes');
    expect(refused("Ctrl+Control+D")).toContain("names Control twice");
    expect(refused("D")).toContain("would take a key that is typed");
    expect(refused("Shift+D")).toContain("would take a key that is typed");
  });
});
