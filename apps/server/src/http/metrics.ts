/**
 * Prometheus metrics of one server (prom-client): a registry of its own (tests start many servers in one process),
 * prom-client's process figures (memory, CPU, event-loop delay, GC), every HTTP request timed by its route's pattern,
 * and counters the composition root hands, as plain functions, to where things happen: a committed message, a finished
 * upload, a push, a sweep, an error of Redis or of the database. Nothing here knows the modules.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { statfs } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { FastifyInstance } from "fastify";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { Config } from "../config/config.ts";
import { errorBody } from "./errors.ts";

export const METRICS_PATH = "/metrics";

/** How a push notification went: accepted, its subscription gone (404/410), refused, or no answer at all. */
export type PushOutcome = "delivered" | "gone" | "failed" | "error";

/** The label of requests no route matched: one series for every unknown path, whatever was asked. */
const UNMATCHED_ROUTE = "unmatched";
/** nginx's status for a request whose client went away before the answer. */
const CLIENT_CLOSED = 499;

export function createMetrics() {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });

  const requests = new Histogram({
    name: "daysync_http_request_duration_seconds",
    help: "HTTP requests by method, route pattern and status, with how long each took to answer.",
    labelNames: ["method", "route", "status"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  const messagesSent = new Counter({
    name: "daysync_messages_sent_total",
    help: "Messages stored (text and files), by the space they went to: a day or a discussion.",
    labelNames: ["space"] as const,
    registers,
  });
  const uploads = new Counter({ name: "daysync_uploads_total", help: "Uploads finished (their file message made).", registers });
  const uploadBytes = new Counter({ name: "daysync_upload_bytes_total", help: "Bytes of the uploads finished.", registers });
  const pushes = new Counter({
    name: "daysync_push_sends_total",
    help: "Web Push notifications sent, by result: delivered, gone (subscription ended), failed (refused), error (no answer).",
    labelNames: ["result"] as const,
    registers,
  });
  const sweeps = new Counter({
    name: "daysync_sweeper_runs_total",
    help: "Retention sweeper passes run by this process, by outcome.",
    labelNames: ["outcome"] as const,
    registers,
  });
  const lastSweep = new Gauge({
    name: "daysync_sweeper_last_success_timestamp_seconds",
    help: "When this process last finished a sweeper pass (Unix time); 0 until it has.",
    registers,
  });
  const busErrors = new Counter({
    name: "daysync_bus_errors_total",
    help: "Errors of the Redis connections (the bus between processes, locks, presence); none without REDIS_URL.",
    registers,
  });
  const databaseErrors = new Counter({
    name: "daysync_database_errors_total",
    help: "Database queries and connections that failed.",
    registers,
  });

  let liveConnections = () => 0;
  new Gauge({
    name: "daysync_live_connections",
    help: "Live connections (WebSockets on /api/live) open on this process.",
    registers,
    collect() {
      this.set(liveConnections());
    },
  });
  const volumes = new Map<string, string>();
  new Gauge({
    name: "daysync_disk_free_bytes",
    help: "Bytes left to the server on the volume of each folder it writes: data (DATA_DIR) and files (FILES_DIR).",
    labelNames: ["volume"] as const,
    registers,
    async collect() {
      for (const [volume, folder] of volumes) {
        const space = await statfs(folder).catch(() => undefined);
        if (space) this.set({ volume }, space.bavail * space.bsize);
      }
    },
  });

  // Every series a label can take is there from the start at 0, so a rate over it is never missing.
  for (const space of ["day", "discussion"]) messagesSent.inc({ space }, 0);
  for (const result of ["delivered", "gone", "failed", "error"] satisfies PushOutcome[]) pushes.inc({ result }, 0);
  for (const outcome of ["ok", "failed"]) sweeps.inc({ outcome }, 0);

  return {
    registry,
    request(method: string, route: string, status: number, seconds: number): void {
      requests.observe({ method, route, status: String(status) }, seconds);
    },
    messageSent: (space: "day" | "discussion"): void => messagesSent.inc({ space }),
    uploadFinished(bytes: number): void {
      uploads.inc();
      uploadBytes.inc(bytes);
    },
    pushSent: (result: PushOutcome): void => pushes.inc({ result }),
    sweeperRan(ok: boolean): void {
      sweeps.inc({ outcome: ok ? "ok" : "failed" });
      if (ok) lastSweep.set(Date.now() / 1000);
    },
    busError: (): void => busErrors.inc(),
    databaseError: (): void => databaseErrors.inc(),
    /** Where the live connections are counted, read at each scrape. */
    countLiveConnections(count: () => number): void {
      liveConnections = count;
    },
    /** A folder whose volume's free space is reported under `volume`. */
    watchDiskSpace(volume: string, folder: string): void {
      volumes.set(volume, folder);
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** Compares digests, so neither the token's length nor its first wrong character shows in the time taken. */
function bearerMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer +(\S+) *$/i.exec(header ?? "")?.[1] ?? "";
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(given), digest(token));
}

/** The exposition a scraper reads, with its content type. */
async function exposition(metrics: Metrics): Promise<{ type: string; body: string }> {
  return { type: metrics.registry.contentType, body: await metrics.registry.metrics() };
}

/**
 * Times every request by the pattern of the route that answered it (`/api/files/:id`, never the raw URL, so the
 * series stay few), from routing to the last byte; tus answers past Fastify's reply, so the raw response is watched.
 */
function timeRequests(app: FastifyInstance, metrics: Metrics): void {
  app.addHook("onRequest", (request, reply, done) => {
    const start = performance.now();
    const res = reply.raw;
    res.once("close", () => {
      const status = res.headersSent ? res.statusCode : CLIENT_CLOSED;
      metrics.request(request.method, request.routeOptions.url ?? UNMATCHED_ROUTE, status, (performance.now() - start) / 1000);
    });
    done();
  });
}

/** GET /metrics on a port of its own, for a scraper on a network clients do not reach: no token asked there. */
async function listenForScrapes(metrics: Metrics, port: number, host: string): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (req.method !== "GET" || path !== METRICS_PATH) {
      res.writeHead(404, { "content-type": "application/json; charset=utf-8" });
      res.end(JSON.stringify(errorBody("not_found", `No route ${req.method} ${path}.`)));
      return;
    }
    exposition(metrics).then(
      ({ type, body }) => {
        res.writeHead(200, { "content-type": type, "cache-control": "no-store" });
        res.end(body);
      },
      () => {
        res.writeHead(500, { "content-type": "application/json; charset=utf-8" });
        res.end(JSON.stringify(errorBody("internal", "The metrics could not be collected.")));
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) => reject(new Error(`METRICS_PORT ${port}: cannot listen on ${host} (${error.message})`)));
    server.listen(port, host, () => resolve());
  });
  return server;
}

/**
 * `GET /metrics`: with a token, on the server's port to a scraper that sends it; with a port of their own, there
 * without one (and on the server's port only if a token is set too); with neither, the same 404 as any unknown path.
 */
export function serveMetrics(app: FastifyInstance, metrics: Metrics | undefined, settings: Config["metrics"]): void {
  if (metrics) timeRequests(app, metrics);
  app.get(METRICS_PATH, async (request, reply) => {
    const { token } = settings;
    if (!metrics || !token) return reply.status(404).send(errorBody("not_found", `No route GET ${METRICS_PATH}.`));
    if (!bearerMatches(request.headers.authorization, token)) {
      return reply
        .status(401)
        .header("www-authenticate", 'Bearer realm="metrics"')
        .send(errorBody("unauthenticated", "The metrics need the token set in METRICS_TOKEN, sent as Authorization: Bearer."));
    }
    const { type, body } = await exposition(metrics);
    return reply.header("content-type", type).header("cache-control", "no-store").send(body);
  });

  const { port, host } = settings;
  if (!metrics || port === undefined) return;
  let server: Server | undefined;
  // Before the server's own port opens: a metrics port that is taken stops the start.
  app.addHook("onReady", async () => {
    server = await listenForScrapes(metrics, port, host);
    app.log.info({ host, port }, "metrics served on their own port");
  });
  app.addHook("onClose", async () => {
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
  });
}
