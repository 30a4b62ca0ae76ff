/**
 * The shortcut of `daysync clip --hotkey KEYS`: "Ctrl+Alt+D" read into modifiers and one key. It needs Ctrl, Alt or
 * Super (Shift alone with a letter would take that capital from every program), except with a function key.
 */
import { z } from "zod";

export const DEFAULT_HOTKEY = "Ctrl+Alt+D";

export type Modifier = "ctrl" | "alt" | "shift" | "super";

const MODIFIER_NAMES: Record<string, Modifier> = {
  ctrl: "ctrl",
  control: "ctrl",
  alt: "alt",
  shift: "shift",
  super: "super",
  win: "super",
  meta: "super",
};

/** Keys by name besides letters, digits and F1–F24: their X11 keysym and their name in XKB (sway's bindsym). */
const NAMED_KEYS: Record<string, { keysym: number; label: string; xkb: string }> = {
  space: { keysym: 0x20, label: "Space", xkb: "space" },
  enter: { keysym: 0xff0d, label: "Enter", xkb: "Return" },
  return: { keysym: 0xff0d, label: "Enter", xkb: "Return" },
  tab: { keysym: 0xff09, label: "Tab", xkb: "Tab" },
  escape: { keysym: 0xff1b, label: "Escape", xkb: "Escape" },
  insert: { keysym: 0xff63, label: "Insert", xkb: "Insert" },
  delete: { keysym: 0xffff, label: "Delete", xkb: "Delete" },
  home: { keysym: 0xff50, label: "Home", xkb: "Home" },
  end: { keysym: 0xff57, label: "End", xkb: "End" },
  pageup: { keysym: 0xff55, label: "PageUp", xkb: "Page_Up" },
  pagedown: { keysym: 0xff56, label: "PageDown", xkb: "Page_Down" },
};

export interface Hotkey {
  modifiers: Modifier[];
  /** The key as written for people: "D", "F9", "Space". */
  key: string;
  /** Its X11 keysym (the unshifted one: d, not D). */
  keysym: number;
  /** Its XKB name, as sway's bindsym takes it: "d", "F9", "space". */
  xkb: string;
}

/** A key's name as one of ours, or undefined. */
function keyOf(name: string): Omit<Hotkey, "modifiers"> | undefined {
  const lower = name.toLowerCase();
  if (/^[a-z0-9]$/.test(lower)) return { key: lower.toUpperCase(), keysym: lower.charCodeAt(0), xkb: lower };
  const f = /^f([1-9]|1\d|2[0-4])$/.exec(lower);
  if (f) return { key: `F${f[1]}`, keysym: 0xffbe + Number(f[1]) - 1, xkb: `F${f[1]}` };
  const named = NAMED_KEYS[lower];
  return named && { key: named.label, keysym: named.keysym, xkb: named.xkb };
}

const EXAMPLE = `e.g. --hotkey ${DEFAULT_HOTKEY} or --hotkey Super+Shift+F9`;

export const hotkeySchema = z.string().transform((text, ctx): Hotkey => {
  const fail = (why: string) => {
    ctx.addIssue({ code: "custom", message: `--hotkey "${text}" ${why} (${EXAMPLE}).` });
    return z.NEVER;
  };
  const parts = text.split("+").map((part) => part.trim());
  if (parts.some((part) => part === "")) return fail("has an empty part: write the keys joined by +");
  const name = parts.at(-1) ?? "";
  const key = keyOf(name);
  if (!key) {
    return MODIFIER_NAMES[name.toLowerCase()]
      ? fail("has no key: end it with a letter, a digit, F1–F24, Space, Enter, Tab, Escape, Insert, Delete, Home, End, PageUp or PageDown")
      : fail(
          `names a key it does not know, "${name}": use a letter, a digit, F1–F24, Space, Enter, Tab, Escape, Insert, Delete, Home, End, PageUp or PageDown`,
        );
  }
  const modifiers: Modifier[] = [];
  for (const part of parts.slice(0, -1)) {
    const modifier = MODIFIER_NAMES[part.toLowerCase()];
    if (!modifier) return fail(`has "${part}" where a modifier goes: use Ctrl, Alt, Shift or Super, and one key at the end`);
    if (modifiers.includes(modifier)) return fail(`names ${part} twice`);
    modifiers.push(modifier);
  }
  const functionKey = key.keysym >= 0xffbe && key.keysym <= 0xffd5;
  if (!functionKey && !modifiers.some((m) => m !== "shift")) {
    return fail("would take a key that is typed: add Ctrl, Alt or Super");
  }
  return { modifiers, ...key };
});

/** KEYS from the command line (`--hotkey` alone is the default) as a shortcut, or the reason it is not one. */
export function parseHotkey(keys: string | true): { ok: true; hotkey: Hotkey } | { ok: false; message: string } {
  const parsed = hotkeySchema.safeParse(keys === true ? DEFAULT_HOTKEY : keys);
  return parsed.success ? { ok: true, hotkey: parsed.data } : { ok: false, message: parsed.error.issues.map((i) => i.message).join(" ") };
}

const LABELS: Record<Modifier, string> = { ctrl: "Ctrl", alt: "Alt", shift: "Shift", super: "Super" };

/** "Ctrl+Alt+D", as people write it. */
export const hotkeyLabel = (hotkey: Hotkey) => [...hotkey.modifiers.map((m) => LABELS[m]), hotkey.key].join("+");
