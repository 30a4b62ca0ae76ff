/** Boot: read config, build the app, listen, stop cleanly on a signal. */

import { buildApp } from "./app/build-app.ts";
import { loadConfig } from "./config/config.ts";

const config = loadConfig();
const { app, sweeper } = await buildApp(config, { sweepOnTimer: true });
await app.listen({ port: config.port, host: config.host });
await sweeper.sweepAsLeader();

/** Longest a stop waits for requests in flight (an upload's bytes) before it gives up on them. */
const SHUTDOWN_GRACE_MS = 30_000;

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    app.log.info(`${signal}: shutting down`);
    setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref();
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
