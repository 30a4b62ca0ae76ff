/** A terminal's keys.json as the tests read it: straight from the file, apart from the CLI's own reading of it. */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Terminal } from "./cli-process.ts";

interface KeysFile {
  [server: string]: { user_id: string; key_id: string; private_key: string; public_key: string; epochs: Record<string, string> };
}

export const keysFile = (terminal: Terminal) => path.join(terminal.configDir, "keys.json");

/** What the terminal's keys.json holds for `server`. */
export const keysOf = (terminal: Terminal, server: string) => (JSON.parse(readFileSync(keysFile(terminal), "utf8")) as KeysFile)[server];
