/**
 * The server's authority pinned from a link (issue 43): `daysync login LINK`, where the link (the code a signed-in
 * device shows under Devices → Add a device, or the server's /trust page) ends in `#…&c=<sha256>`, the SHA-256 of the
 * certificate authority the server made for the home network. The command fetches that authority from the server,
 * keeps it only if it is the one the link names and it issued the certificate the server shows, and from then on
 * trusts it for that server (as `--ca` would) without a file to copy. A server that later shows a certificate from
 * another authority is refused (errors.ts says what to do).
 */
import { createHash, X509Certificate } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import path from "node:path";
import type { TLSSocket } from "node:tls";
import { authorityPinOf, TRUST_PAGE } from "@daysync/shared";
import { z } from "zod";
import { ConfigStore, configDir } from "./config-store.ts";
import { CliError, EXIT, networkCause, unreachable } from "./errors.ts";
import { chooseServer, normalizeServerUrl } from "./server-url.ts";

/** Set for the run that trusts a pinned authority: the server it was pinned for (errors.ts words a refusal with it). */
export const PINNED_SERVER_ENV = "DAYSYNC_PINNED_SERVER";

const PINS_FILE = "authorities.json";
const pinsSchema = z.record(z.string(), z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/), pinned_at: z.number() }));

/** The global options that take a value, and `login`'s: their value is not the command or its argument. */
const VALUED = new Set(["-s", "--server", "--ca", "--email"]);

/** The command and its first argument in `argv` (after the global options), as commander will read them. */
function commandOf(argv: readonly string[]): { command?: string; argument?: string; server?: string } {
  const found: { command?: string; argument?: string; server?: string } = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--") break;
    if (VALUED.has(arg)) {
      if (arg === "-s" || arg === "--server") found.server = argv[i + 1];
      i++;
    } else if (arg.startsWith("--server=")) found.server = arg.slice("--server=".length);
    else if (arg.startsWith("-")) continue;
    else if (found.command === undefined) found.command = arg;
    else if (found.argument === undefined) found.argument = arg;
  }
  return found;
}

const sha256Of = (certificate: X509Certificate) => createHash("sha256").update(certificate.raw).digest("hex");

/** The authority's file for `pin` in the config directory. */
const fileOf = (dir: string, pin: string) => path.join(dir, "authorities", `${pin}.pem`);

function readPins(dir: string): z.infer<typeof pinsSchema> {
  try {
    return pinsSchema.parse(JSON.parse(readFileSync(path.join(dir, PINS_FILE), "utf8")));
  } catch {
    return {};
  }
}

/** The authority the server at `origin` serves on its /trust page, and the certificate it shows, unchecked. */
function fetchAuthority(origin: string): Promise<{ authority: string; shown: X509Certificate | undefined }> {
  return new Promise((resolve, reject) => {
    // Not checked here on purpose: what it answers is kept only if it matches the pin (below).
    const asked = request(`${origin}${TRUST_PAGE}/daysync-ca.pem`, { rejectUnauthorized: false, agent: false, timeout: 10_000 }, (res) => {
      const shown = (res.socket as TLSSocket).getPeerX509Certificate();
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        if (body.length < 100_000) body += chunk;
      });
      res.on("end", () => resolve({ authority: res.statusCode === 200 ? body : "", shown }));
    });
    asked.on("timeout", () => asked.destroy(new Error("ETIMEDOUT")));
    asked.on("error", reject);
    asked.end();
  });
}

/** Fetches the authority `pin` names from the server, checks it, and keeps it: its file. */
async function pinFrom(dir: string, origin: string, pin: string): Promise<string> {
  if (!origin.startsWith("https:"))
    throw new CliError(`The link names a certificate for ${origin}, which is not an https:// address.`, EXIT.usage);
  const { authority, shown } = await fetchAuthority(origin).catch((error: unknown) => {
    throw unreachable(origin, networkCause(error));
  });
  let certificate: X509Certificate | undefined;
  try {
    certificate = new X509Certificate(authority);
  } catch {
    certificate = undefined;
  }
  const issuedIt = certificate && shown ? shown.checkIssued(certificate) && shown.verify(certificate.publicKey) : false;
  if (!certificate || sha256Of(certificate) !== pin || !issuedIt) {
    throw new CliError(
      `The server at ${origin} does not show the certificate the link names, so this terminal does not trust it and sent nothing. If the link is from your own server, open Devices → Add a device there again and use the new link; if it still fails, someone may be in between: do not sign in.`,
      EXIT.unreachable,
    );
  }
  const file = fileOf(dir, pin);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, authority, { mode: 0o600 });
  const pins = { ...readPins(dir), [origin]: { sha256: pin, pinned_at: Date.now() } };
  const temporary = path.join(dir, `${PINS_FILE}.${process.pid}.tmp`);
  writeFileSync(temporary, `${JSON.stringify(pins, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, path.join(dir, PINS_FILE));
  return file;
}

/**
 * The pinned authority this command trusts, and the server it is for: the one `login LINK` pins now, else the one
 * pinned before for the server the command talks to; undefined when there is none (the system's authorities only).
 */
export async function pinnedAuthority(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ file: string; server: string } | undefined> {
  const dir = configDir(env);
  const { command, argument, server: serverOption } = commandOf(argv);
  const link = command === "login" ? argument : undefined;
  const pin = link ? authorityPinOf(link) : null;
  if (link && pin) {
    const origin = normalizeServerUrl(link);
    return { file: await pinFrom(dir, origin, pin), server: origin };
  }
  const server = chooseServer(link ?? serverOption, env, new ConfigStore(dir).defaultServer());
  const pinned = server ? readPins(dir)[server] : undefined;
  return server && pinned ? { file: fileOf(dir, pinned.sha256), server } : undefined;
}
