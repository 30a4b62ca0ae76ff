/** What every command starts from: the config directory, the chosen server and, when signed in, a client with the session. */
import { ApiClient } from "./api-client.ts";
import { ConfigStore, configDir, type StoredSession } from "./config-store.ts";
import { notSignedIn } from "./errors.ts";
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

  /** The server and its stored session, or "not signed in" with the command to run. */
  signedIn(): { api: ApiClient; session: StoredSession; server: string } {
    const session = this.server ? this.store.session(this.server) : undefined;
    if (!this.server || !session) throw notSignedIn(this.server);
    return { api: new ApiClient(this.server, session.token), session, server: this.server };
  }
}
