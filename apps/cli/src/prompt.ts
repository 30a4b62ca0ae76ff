/** Reading what a person types (the password without echo) or what a script pipes in. */
import { read } from "read";

/** A line typed at the terminal; `secret` shows nothing while typing. */
export async function ask(prompt: string, options: { secret?: boolean } = {}): Promise<string> {
  try {
    const answer = await read({ prompt, silent: options.secret, replace: "", output: process.stderr });
    // Nothing was echoed, not even the Enter key.
    if (options.secret) process.stderr.write("\n");
    return answer;
  } catch {
    // read rejects on Ctrl+C or a closed input.
    return "";
  }
}

/** All of standard input, e.g. `echo hi | daysync send` or `daysync send < notes.txt`. */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString("utf8");
}

/** The first line of standard input, for a password a script pipes in (never from argv, where `ps` would show it). */
export async function readStdinLine(): Promise<string> {
  return (await readStdin()).split(/\r?\n/)[0] ?? "";
}
