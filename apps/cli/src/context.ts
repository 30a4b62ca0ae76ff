/** What every command starts from: the config directory, the chosen server and, when signed in, a client with the session. */

import { API } from "@daysync/shared";
import { ApiClient } from "./api-client.ts";
import { ConfigStore, configDir, type StoredSession } from "./config-store.ts";
import { networkCause, notSignedIn, unreachable } from "./errors.ts";
import { chooseServer } from "./server-url.ts";

/** Options every command accepts (declared on the program). */
export interface GlobalOptions {
  server?: string;
}

export class Context {
  readonly store = new ConfigStore(configDir());
  readonly server: string | undefined;

  constructor(options: GlobalOptions, serverArgument?: string) {
    this.server = chooseServer(serverArgument ?? options.server, process.env, this.store.defaultServer());
  }

  /**
   * The server and its stored session, or "not signed in" with the command to run; a server that does not answer is
   * said to be unreachable first, since signing in to it would fail the same way.
   */
  async signedIn(): Promise<{ api: ApiClient; session: StoredSession; server: string }> {
    const session = this.server ? this.store.session(this.server) : undefined;
    if (!this.server || !session) {
      if (this.server) await assertReachable(this.server);
      throw notSignedIn(this.server);
    }
    return { api: new ApiClient(this.server, session.token), session, server: this.server };
  }
}

const PROBE_TIMEOUT_MS = 10_000;

async function assertReachable(server: string): Promise<void> {
  try {
    await fetch(server + API.health, { redirect: "manual", signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
  } catch (error) {
    throw unreachable(server, networkCause(error));
  }
}
