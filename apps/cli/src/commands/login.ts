/** `daysync login` (by pairing with a signed-in device, or by password) and `daysync logout`. */
import { hostname } from "node:os";
import {
  API,
  formatShortCode,
  LOGIN_TOKEN_TTL_MS,
  loginSchema,
  PAIR_ROUTE,
  PAIRING_API,
  pairLink,
  responseSchemas,
  type TypedPairingExchange,
  type User,
} from "@daysync/shared";
import QRCode from "qrcode";
import { ApiClient, ApiError, sessionTokenOf } from "../api-client.ts";
import type { Context } from "../context.ts";
import { CliError, EXIT, usageError } from "../errors.ts";
import { waitForApproval } from "../pairing-channel.ts";
import { ask, readStdinLine } from "../prompt.ts";
import { fileKeys } from "../sealing/account-keys.ts";
import { LOCKED_TERMINAL, waitForKeyApproval } from "../sealing/key-approval.ts";
import { askToPair, type TerminalPairing } from "../sealing/login-pairing.ts";
import { say } from "../terminal-text.ts";

export interface LoginOptions {
  password?: boolean;
  email?: string;
}

/** A code the server said expired is replaced; after this many codes nobody is looking. */
const MAX_CODES = 5;

export async function login(ctx: Context, options: LoginOptions): Promise<void> {
  const server = ctx.server;
  if (!server) throw usageError("Which server? Give its address: daysync login https://daysync.example.com");
  const api = new ApiClient(server, null);
  const { user, token, pairing } = options.password ? await loginWithPassword(api, options.email) : await loginByPairing(api);
  const previous = ctx.store.session(server);
  ctx.store.saveSession(server, { token, user: { id: user.id, name: user.name, email: user.email }, signed_in_at: Date.now() });
  // The session this terminal had before would linger in the Devices list as a second "daysync CLI".
  if (previous && previous.token !== token) await new ApiClient(server, previous.token).send("POST", API.logout).catch(() => {});
  say(`Signed in as ${user.name} (${user.email}) on ${server}.`);
  say(`This terminal is listed in Devices as "daysync CLI on ${hostname()}".`);
  const signedIn = new ApiClient(server, token);
  if (pairing) await pairing.keys.keepKeys(signedIn, ctx.store, user.id, pairing.approved);
  const parts = fileKeys(signedIn, ctx.store, server, user.id);
  const status = await parts.keys.sync();
  if (status.state !== "locked") return;
  say(LOCKED_TERMINAL);
  if (status.recoveryCode) say("Have your recovery code? Run daysync unlock.");
  // A script piping the password in is not watched by a person who could type the code: it stays signed in, locked.
  if (process.stdin.isTTY !== true) {
    say("Run daysync login --password in a terminal to approve it from another device with a code it shows.");
    return;
  }
  await waitForKeyApproval(parts, user.id, status.keys, { log: (line) => say(line) });
}

/** What a login by pairing leaves for after the exchange: its keys' side, and a typed code's exchange as approved. */
interface Pairing {
  keys: TerminalPairing;
  approved?: TypedPairingExchange;
}

interface SignedIn {
  user: User;
  token: string;
  pairing?: Pairing;
}

async function loginByPairing(api: ApiClient): Promise<SignedIn> {
  // Ctrl+C while waiting ends the wait with a sentence (and exit 130) instead of killing the process mid-line.
  const interrupt = new AbortController();
  const onInterrupt = () => interrupt.abort();
  process.once("SIGINT", onInterrupt);
  try {
    return await pairUntilDecided(api, interrupt.signal);
  } finally {
    process.off("SIGINT", onInterrupt);
  }
}

async function pairUntilDecided(api: ApiClient, signal: AbortSignal): Promise<SignedIn> {
  for (let attempt = 1; attempt <= MAX_CODES; attempt++) {
    const pairing = await askToPair(api);
    const { request } = pairing;
    const link = pairLink(api.server, request.code) + pairing.fragment;
    const minutes = Math.round(request.expires_in / 60_000);
    say(`\nSign in this terminal to ${api.server}\n`);
    // The QR code is drawn with this terminal's own colour sequences, from a link this terminal made: printed as is.
    process.stdout.write(`${await QRCode.toString(link, { type: "terminal", small: true })}\n`);
    say("On a phone or computer where you are signed in to Daysync, scan this code with the camera");
    say(`(or Devices → "Scan or type a code"), then approve. Without a camera, open ${api.server}${PAIR_ROUTE} there and type the code:`);
    say(`\n  Code: ${formatShortCode(request.short_code)}\n`);
    say(`Waiting for approval (the code expires in ${minutes} min). Press Ctrl+C to cancel.`);

    const outcome = await waitForApproval(api.server, request, request.expires_in + 15_000, signal, pairing.followStep);
    switch (outcome.type) {
      case "approved": {
        const { body, res } = await api.json("POST", PAIRING_API.exchange, responseSchemas.user, {
          request_id: request.request_id,
          secret: request.secret,
          token: outcome.token,
        });
        const token = sessionTokenOf(res);
        if (!token) throw new CliError(`${api.server} approved the sign-in but set no session.`);
        return { user: body.user, token, pairing: { keys: pairing, ...(outcome.exchange ? { approved: outcome.exchange } : {}) } };
      }
      case "denied":
        throw new CliError("The sign-in was denied on the other device.", EXIT.failure);
      case "ended":
        throw new CliError(outcome.text, EXIT.failure);
      case "cancelled":
        throw new CliError("\nSign-in cancelled. Nothing was signed in; run daysync login again to start over.", EXIT.interrupted);
      case "expired":
        say("\nThe code expired. Here is a new one.");
        break;
      case "failed":
        throw new CliError(
          `The sign-in failed (the approval was not valid within ${LOGIN_TOKEN_TTL_MS / 1000} s). Run daysync login again.`,
        );
      case "lost":
        say(`\nThe connection to the server was lost (${outcome.reason}). Here is a new code.`);
        break;
    }
  }
  throw new CliError("No one approved the sign-in. Run daysync login again when the other device is at hand.");
}

async function loginWithPassword(api: ApiClient, emailOption: string | undefined): Promise<SignedIn> {
  const interactive = process.stdin.isTTY === true;
  let email = emailOption;
  if (!email) {
    if (!interactive) throw usageError("Give the email with --email; the password is then read from standard input.");
    email = await ask("Email: ");
  }
  const password = interactive ? await ask("Password: ", { secret: true }) : await readStdinLine();
  const parsed = loginSchema.safeParse({ email, password });
  if (!parsed.success) throw usageError(parsed.error.issues.map((issue) => issue.message).join(" "));
  const { body, res } = await api.json("POST", API.login, responseSchemas.user, parsed.data).catch((error: unknown) => {
    // The server answers an account made through a sign-in provider (it has no password) as a wrong password, on
    // purpose (docs/decisions/019-account-settings.md): so the hint comes with every refusal.
    if (error instanceof ApiError && error.code === "invalid_credentials") {
      throw new CliError(
        `${error.message}\nIf you made your account with Google, GitHub or another sign-in provider, it has no password: ` +
          "run `daysync login` (without --password) and approve the QR code on a device where you are signed in, " +
          "or set a password in Settings on the web app first.",
      );
    }
    throw error;
  });
  const token = sessionTokenOf(res);
  if (!token) throw new CliError(`${api.server} accepted the password but set no session.`);
  return { user: body.user, token };
}

export async function logout(ctx: Context): Promise<void> {
  const { api, server } = await ctx.signedIn();
  try {
    await api.send("POST", API.logout);
  } catch (error) {
    // Already ended on the server (signed out elsewhere): only the local copy is left to delete.
    if (!(error instanceof CliError && error.exitCode === EXIT.signedOut)) throw error;
  }
  ctx.store.deleteSession(server);
  ctx.store.deleteKeys(server);
  say(`Signed out of ${server}.`);
}
