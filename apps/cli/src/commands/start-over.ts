/**
 * `daysync start-over`: the way out for a locked terminal with no device left to approve it (decision 021), as the
 * web app's locked screen has it. With no other signed-in device holding the key it starts over at once, its cost
 * said and confirmed first; while one does, it asks to start over in 24 hours (every device is told, and one holding
 * the key can cancel), and once the day has passed it starts over. `--cancel` withdraws this terminal's request, or,
 * on a terminal that can read, cancels another device's.
 */
import { DEVICES_API, KEYS_API, keysStateSchema, responseSchemas, START_OVER_TEXT } from "@daysync/shared";
import type { ApiClient } from "../api-client.ts";
import type { Context } from "../context.ts";
import { CliError, EXIT, usageError } from "../errors.ts";
import { ask } from "../prompt.ts";
import { terminalStartOver } from "../sealing/start-over.ts";
import { say, warn } from "../terminal-text.ts";

export interface StartOverOptions {
  cancel?: boolean;
  yes?: boolean;
}

export const STARTED_OVER = "This terminal started over: it made a new key, and can read and send again.";
export const NOTHING_TO_START_OVER = "This terminal can already read your messages: there is nothing to start over.";
/** What a person types to confirm at the terminal, so a stray Enter never starts over. */
const CONFIRMATION = "start over";

const when = (at: number) => new Date(at).toLocaleString([], { dateStyle: "medium", timeStyle: "short" });

export async function startOver(ctx: Context, options: StartOverOptions): Promise<void> {
  const { api, session, server } = await ctx.signedIn();
  if (options.cancel) {
    const request = (await keysState(api)).start_over;
    if (!request) return say("No request to start over stands.");
    await api.json("DELETE", KEYS_API.startOver, keysStateSchema);
    return say(request.by_this_device ? START_OVER_TEXT.withdrawn : START_OVER_TEXT.cancelled);
  }
  const terminal = await terminalStartOver(api, ctx.store, server, session.user.id);
  const state = await keysState(api);
  if (terminal.state === "ready") {
    if (state.start_over && !state.start_over.by_this_device) {
      say(START_OVER_TEXT.requested(when(state.start_over.requested_at)));
      return say("To cancel it: daysync start-over --cancel");
    }
    return say(NOTHING_TO_START_OVER);
  }
  if (terminal.state === "lost") throw new CliError("This terminal's keys are gone. Run daysync login again.", EXIT.locked);
  if (state.recovery) throw new CliError(`${START_OVER_TEXT.recoveryIsTheWay} Unlock this terminal with: daysync unlock`, EXIT.locked);

  const asked = state.start_over?.by_this_device ? state.start_over : undefined;
  if (state.other_devices_with_current_key > 0 && !asked) {
    await sayHolders(api);
    const requested = (await api.json("POST", KEYS_API.startOver, keysStateSchema)).body.start_over;
    say(START_OVER_TEXT.asked(when(requested?.available_at ?? Date.now())));
    return say("To withdraw it: daysync start-over --cancel");
  }
  // With a request standing, the server says whether its day has passed: this terminal's clock may not agree.
  if (asked && !options.yes) {
    await sayHolders(api);
    say(START_OVER_TEXT.asked(when(asked.available_at)));
    return say("From then on, start over with: daysync start-over --yes");
  }
  await confirm(options);
  const answer = await terminal.startOver();
  if (answer.ok) return say(STARTED_OVER);
  if (answer.code === "key_recovery_code_set") throw new CliError(START_OVER_TEXT.recoveryInstead, EXIT.locked);
  if (asked) throw new CliError(START_OVER_TEXT.asked(when(asked.available_at)), EXIT.locked);
  throw new CliError(START_OVER_TEXT.stillHeld, EXIT.locked);
}

const keysState = async (api: ApiClient) => (await api.json("GET", KEYS_API.keys, keysStateSchema)).body;

/** Which devices can read, and when each was last seen: where the key still is, before asking to start over. */
async function sayHolders(api: ApiClient) {
  const { devices } = await api.get(DEVICES_API.list, responseSchemas.devices);
  for (const device of devices.filter((d) => d.key_status === "can_read"))
    say(START_OVER_TEXT.holder(device.name, when(device.last_seen_at)));
}

/** The cost said, then `start over` typed at a terminal, or `--yes` from a script. */
async function confirm(options: StartOverOptions) {
  warn(START_OVER_TEXT.consequences);
  if (options.yes) return;
  if (process.stdin.isTTY !== true) throw usageError("Start over cannot be undone: run it again with --yes to confirm.");
  const typed = await ask(`Type "${CONFIRMATION}" to go ahead: `);
  if (typed.trim().toLowerCase() !== CONFIRMATION) throw usageError("Nothing changed: start over was not confirmed.");
}
