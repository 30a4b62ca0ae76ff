/**
 * Where a program cannot take a global shortcut (Wayland, macOS, Windows), `clip --hotkey` says so and prints the
 * binding that runs `daysync send --clipboard` instead. The README's "One key press instead" says the same.
 */
import { type Hotkey, hotkeyLabel, type Modifier } from "./hotkey-keys.ts";

export const SEND_CLIPBOARD = "daysync send --clipboard";

const SWAY_MODIFIERS: Record<Modifier, string> = { ctrl: "Ctrl", alt: "Alt", shift: "Shift", super: "Mod4" };

/** sway's (and i3's) line for its config file. */
export const swayBinding = (hotkey: Hotkey) =>
  `bindsym ${[...hotkey.modifiers.map((m) => SWAY_MODIFIERS[m]), hotkey.xkb].join("+")} exec ${SEND_CLIPBOARD}`;

export type Desktop = "wayland" | "darwin" | "win32";

/** A few lines: why there is no global shortcut here, and the binding to add to the desktop instead. */
export function bindingsText(desktop: Desktop, hotkey: Hotkey): string {
  const keys = hotkeyLabel(hotkey);
  const intro = {
    wayland:
      "On Wayland a program cannot take a global shortcut: the compositor owns the keyboard. Bind the keys in your desktop to run the command instead:",
    darwin: "On macOS a command-line program cannot take a global shortcut. Give the command a keyboard shortcut instead:",
    win32: "On Windows a console program cannot take a global shortcut. Give the command a shortcut key instead:",
  }[desktop];
  const ways = {
    wayland: [
      `  sway (~/.config/sway/config, then swaymsg reload):  ${swayBinding(hotkey)}`,
      `  GNOME: Settings › Keyboard › Custom Shortcuts › Add: command "${SEND_CLIPBOARD}", shortcut ${keys}`,
      `  KDE: System Settings › Shortcuts › Custom Shortcuts: Add Command "${SEND_CLIPBOARD}", shortcut ${keys}`,
    ],
    darwin: [
      `  Shortcuts app › New Shortcut › "Run Shell Script" with "${SEND_CLIPBOARD}" (the full path from: command -v daysync);`,
      `  then the shortcut's details (ⓘ) › Add Keyboard Shortcut: ${keys}`,
    ],
    win32: [
      `  a shortcut (.lnk) on the Desktop or in the Start menu: New › Shortcut, target: cmd /c ${SEND_CLIPBOARD}`,
      `  then its Properties › Shortcut key: ${keys} (Windows makes it Ctrl+Alt+ the key you press), Run: Minimized`,
    ],
  }[desktop];
  return [intro, ...ways, "That runs it once for each press; no daysync clip needs to be running."].join("\n");
}
