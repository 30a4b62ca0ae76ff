/** Boot: read config, build the app, stop cleanly on a signal, listen. */

import v8 from "node:v8";
import { addressToOpen } from "./app/address-to-open.ts";
import { buildApp } from "./app/build-app.ts";
import { attachHttps, plainHttpForThisMachine, planHttps } from "./app/home-network.ts";
import { startBanner } from "./app/start-banner.ts";
import { loadConfig } from "./config/config.ts";
import { NO_ADMIN_NOTICE } from "./modules/admin/admin.service.ts";

// Let the old generation grow to twice what outlived the last full GC before the next one (V8 chose less for this
// server): under load full GCs, whose marking steps hold up live deliveries, come far more rarely, for a larger
// heap (decision 014).
v8.setFlagsFromString("--heap-growing-percent=100");

const config = loadConfig();
// HTTPS on the home network (issue 43): the certificate is made or renewed before anything listens.
const https = planHttps(config);
const { app, hasAdmin } = await buildApp(config, { sweepOnTimer: true, homeNetwork: https.network });
const secure = https.listen && attachHttps(app, https.listen);
if (https.listen) plainHttpForThisMachine(app, https.network, https.listen.hosts);

/** Longest a stop waits for requests in flight (an upload's bytes) before it gives up on them. */
const SHUTDOWN_GRACE_MS = 30_000;

// Before listening: from its first request on, a stop lets requests finish and tells live devices (1001).
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

// Fastify logs every address it listens on (each interface of 0.0.0.0) as JSON; a person starting it wants one line to open.
const level = app.log.level;
if (level === "info") app.log.level = "warn";
await app.listen({ port: config.port, host: config.host });
await secure?.start();
app.log.level = level;
const address = app.server.address();
const port = typeof address === "object" && address ? address.port : config.port;
process.stdout.write(await startBanner({ httpUrl: addressToOpen(config.host, port), plan: https, qr: process.stdout.isTTY === true }));
if (!(await hasAdmin())) process.stdout.write(`${NO_ADMIN_NOTICE}\n`);
