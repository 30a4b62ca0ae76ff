/** The server a command talks to: --server, then DAYSYNC_SERVER, then the server of the last sign-in. */
import { usageError } from "./errors.ts";

const LOCAL = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?(\/|$)/i;

/** The origin of a server address; a bare host gets https (http for this machine). */
export function normalizeServerUrl(input: string): string {
  const text = input.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `${LOCAL.test(text) ? "http" : "https"}://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw usageError(`"${input}" is not a server address. Give one like https://daysync.example.com`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw usageError(`"${input}" is not a server address: it must start with https:// or http://`);
  }
  return url.origin;
}

export function chooseServer(option: string | undefined, env: NodeJS.ProcessEnv, stored: string | undefined): string | undefined {
  const chosen = option || env.DAYSYNC_SERVER || stored;
  return chosen ? normalizeServerUrl(chosen) : undefined;
}
