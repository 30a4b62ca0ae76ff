/**
 * `--ca FILE` (or DAYSYNC_CA): trust one more certificate authority, such as the one a Daysync server makes for the
 * home network (issue 43), for every request of the command (fetch, WebSockets, uploads). Node reads extra
 * authorities only as it starts (NODE_EXTRA_CA_CERTS), so the command runs once more in a process that has it.
 */
import { spawnSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { CliError, EXIT } from "./errors.ts";

/** The file named by `--ca FILE`, `--ca=FILE` or DAYSYNC_CA (the option wins), as an absolute path. */
export function caFileOf(argv: readonly string[], env: NodeJS.ProcessEnv): string | undefined {
  let named: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--") break;
    if (arg === "--ca") named = argv[i + 1];
    else if (arg.startsWith("--ca=")) named = arg.slice("--ca=".length);
  }
  const file = named ?? env.DAYSYNC_CA;
  return file ? path.resolve(file) : undefined;
}

/** Refuses a file that is not there or holds no certificate, before anything is sent. */
export function checkCaFile(file: string): void {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    throw new CliError(`--ca ${file}: this file cannot be read.`, EXIT.usage);
  }
  try {
    new X509Certificate(text);
  } catch {
    throw new CliError(
      `--ca ${file}: this is not a certificate in PEM form (daysync-ca.pem from the server's /trust page is).`,
      EXIT.usage,
    );
  }
}

/** Whether this process already trusts `file` (it is the run started by `runTrusting`). */
export const alreadyTrusted = (file: string, env: NodeJS.ProcessEnv) => env.NODE_EXTRA_CA_CERTS === file;

/** Runs this same command again with `file` trusted (and `env` added), and answers its exit code. */
export function runTrusting(file: string, env: Record<string, string> = {}): number {
  const child = spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: "inherit",
    env: { ...process.env, ...env, NODE_EXTRA_CA_CERTS: file },
  });
  if (child.error) throw new CliError(`Could not run daysync again to trust ${file}: ${child.error.message}`, EXIT.failure);
  return child.status ?? (child.signal === "SIGINT" ? EXIT.interrupted : EXIT.failure);
}
