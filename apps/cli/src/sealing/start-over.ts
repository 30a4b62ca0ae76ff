/**
 * Start over on a locked terminal (decision 021), as the web app's locked screen offers it: a new epoch made by this
 * terminal alone, which the server allows only when no other signed-in device holds the key, or once this terminal's
 * request to start over has stood 24 hours uncancelled, and never while a recovery code is set.
 */
import type { ApiClient } from "../api-client.ts";
import type { ConfigStore } from "../config-store.ts";
import { fileKeys } from "./account-keys.ts";

/** Where this terminal stands: `locked` comes with its Start over, which answers the server's refusal code. */
export type TerminalStartOver =
  | { state: "ready" }
  | { state: "lost" }
  | { state: "locked"; startOver(): Promise<{ ok: true } | { ok: false; code: string }> };

export async function terminalStartOver(api: ApiClient, store: ConfigStore, server: string, userId: string): Promise<TerminalStartOver> {
  const { keys } = fileKeys(api, store, server, userId);
  const status = await keys.sync();
  if (status.state !== "locked") return { state: status.state };
  return {
    state: "locked",
    async startOver() {
      const answer = await keys.startOver();
      if (!answer.ok) return answer;
      await keys.sync();
      return { ok: true };
    },
  };
}
