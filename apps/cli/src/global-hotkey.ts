/**
 * A global shortcut on X11: the keys are grabbed on the root window (XGrabKey), so the X server hands their press to
 * this program whichever window has the focus. The grab is made once more with CapsLock and NumLock (Lock, Mod2),
 * whose state is part of a key press's modifiers, so that the shortcut works with them on. It goes with the connection.
 */
import x11 from "x11";
import { CliError } from "./errors.ts";
import { type Hotkey, hotkeyLabel, type Modifier } from "./hotkey-keys.ts";

type X11Client = x11.X11Client;
type X11Display = x11.X11Display;
type X11Error = x11.X11Error;

const MASKS: Record<Modifier, number> = { shift: 1, ctrl: 4, alt: 8, super: 64 };
/** CapsLock is Lock; NumLock is Mod2 on every keyboard map in common use. */
const LOCKS = [0, 2, 16, 2 | 16];
const BAD_ACCESS = 10;
const GRAB_MODE_ASYNC = 1;
const CONNECT_ATTEMPTS = 3;

export interface HeldHotkey {
  release(): void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function connect(display: string): Promise<X11Display> {
  return new Promise((resolve, reject) => {
    x11.createClient({ display }, (error, opened) => (error ? reject(error) : resolve(opened)));
  });
}

/** The keycode that types `keysym` on this keyboard map, or undefined. */
function keycodeOf(client: X11Client, opened: X11Display, keysym: number): Promise<number | undefined> {
  const first = opened.min_keycode;
  return new Promise((resolve, reject) => {
    client.GetKeyboardMapping(first, opened.max_keycode - first + 1, (error, rows) => {
      if (error) return reject(error);
      // The unshifted column first: on most maps a letter's own key also lists it in later columns.
      const index = rows.findIndex((row) => row[0] === keysym);
      const anywhere = index >= 0 ? index : rows.findIndex((row) => row.includes(keysym));
      resolve(anywhere >= 0 ? first + anywhere : undefined);
    });
  });
}

function grab(client: X11Client, root: number, modifiers: number, keycode: number): Promise<X11Error | null> {
  return new Promise((resolve) =>
    client.GrabKey(root, 0, modifiers, keycode, GRAB_MODE_ASYNC, GRAB_MODE_ASYNC, (error) => {
      resolve(error);
      return true;
    }),
  );
}

/**
 * Grabs `hotkey` on the X display and calls `pressed` at each press, until released. `lost` is told when the
 * connection to the X server ends. A shortcut another program holds is a CliError that says to choose another.
 */
export async function grabHotkey(display: string, hotkey: Hotkey, pressed: () => void, lost: (error: Error) => void): Promise<HeldHotkey> {
  let opened: X11Display | undefined;
  for (let attempt = 1; !opened; attempt++) {
    try {
      opened = await connect(display);
    } catch (error) {
      // A busy X server now and then closes a new connection before its set-up.
      if (attempt >= CONNECT_ATTEMPTS) {
        throw new CliError(`Cannot connect to the X display ${display} to take the shortcut: ${(error as Error).message}`);
      }
      await sleep(300);
    }
  }
  const { client } = opened;
  const root = opened.screen[0]?.root ?? 0;
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    client.terminate();
  };
  client.on("error", (error) => {
    if (!released) lost(error);
  });
  client.on("end", () => {
    if (!released) lost(new Error(`the X display ${display} closed the connection`));
  });
  try {
    const keycode = await keycodeOf(client, opened, hotkey.keysym);
    if (keycode === undefined) {
      throw new CliError(`No key of this keyboard types ${hotkey.key}: choose another shortcut with --hotkey KEYS.`);
    }
    const mask = hotkey.modifiers.reduce((sum, modifier) => sum | MASKS[modifier], 0);
    const errors = await Promise.all(LOCKS.map((locks) => grab(client, root, mask | locks, keycode)));
    const failed = errors.find((error) => error !== null);
    if (failed) {
      throw new CliError(
        failed.error === BAD_ACCESS
          ? `The shortcut ${hotkeyLabel(hotkey)} is already taken by another program on this desktop: choose another with --hotkey KEYS (e.g. --hotkey Ctrl+Alt+F9).`
          : `Could not take the shortcut ${hotkeyLabel(hotkey)}: ${failed.message}`,
      );
    }
    client.on("event", (event) => {
      if (event.name === "KeyPress" && event.keycode === keycode) pressed();
    });
    return { release };
  } catch (error) {
    release();
    throw error;
  }
}
