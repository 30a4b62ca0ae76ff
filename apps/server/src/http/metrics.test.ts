import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { API, PUSH_API } from "@daysync/shared";
import Fastify from "fastify";
import { Redis } from "ioredis";
import { sql } from "kysely";
import parsePrometheusTextFormat, { type PrometheusFamily } from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../testing/free-port.ts";
import { newSubscriptionKeys, type PushServiceDouble, startPushServiceDouble } from "../testing/push-service-double.ts";
import { Device, startTestServer, type TestServer, textMessage } from "../testing/test-server.ts";
import { metadata, uploadFile } from "../testing/tus-client.ts";
import { createMetrics, serveMetrics } from "./metrics.ts";

const TOKEN = "scrape-token-0123456789abcdef";

const HTTP_HISTOGRAM = "daysync_http_request_duration_seconds";

/**
 * Reads /metrics with a Prometheus text-format parser of its own: a line it cannot read throws. The parser folds a
 * labelled histogram into one series, so the HTTP histogram's `_count` lines are read again as a family of their own.
 */
async function scrape(url: string, token: string | undefined = TOKEN): Promise<PrometheusFamily[]> {
  const res = await fetch(`${url}/metrics`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  const counts = text.split("\n").filter((line) => line.startsWith(`${HTTP_HISTOGRAM}_count{`));
  return [...parsePrometheusTextFormat(text), ...parsePrometheusTextFormat(`${counts.join("\n")}\n`)];
}

function family(families: PrometheusFamily[], name: string): PrometheusFamily {
  const found = families.find((f) => f.name === name);
  if (!found) throw new Error(`no ${name} in /metrics`);
  return found;
}

/** The value of one series of a counter or gauge; 0 when that series is not there (yet). */
function value(families: PrometheusFamily[], name: string, labels: Record<string, string> = {}): number {
  const sample = family(families, name).metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return Number(sample?.value ?? 0);
}

/** How many requests the HTTP histogram holds for these labels. */
function requests(families: PrometheusFamily[], labels: Record<string, string>): number {
  return family(families, `${HTTP_HISTOGRAM}_count`)
    .metrics.filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
    .reduce((sum, m) => sum + Number(m.value ?? 0), 0);
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 3000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("GET /metrics with METRICS_TOKEN", () => {
  let server: TestServer;
  let pushService: PushServiceDouble;
  beforeAll(async () => {
    server = await startTestServer({ METRICS_TOKEN: TOKEN });
    pushService = await startPushServiceDouble();
  });
  afterAll(async () => {
    await pushService.close();
    await server.close();
  });

  it("refuses a scraper without the token, with a wrong one or another scheme: 401 with a JSON body", async () => {
    for (const authorization of [undefined, `Bearer ${TOKEN}x`, "Bearer wrong", `Basic ${TOKEN}`, `Bearer`]) {
      const res = await fetch(`${server.url}/metrics`, authorization ? { headers: { authorization } } : {});
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("unauthenticated");
      expect(body.error.message).toMatch(/METRICS_TOKEN/);
    }
  });

  it("after traffic, every named series is there and has moved; the whole text parses as Prometheus format", async () => {
    const before = await scrape(server.url);

    const phone = new Device(server.url);
    await phone.register("Mia", "mia@example.com");
    const laptop = new Device(server.url);
    await laptop.login("mia@example.com");
    const tablet = new Device(server.url);
    await tablet.login("mia@example.com");
    for (const [device, path] of [
      [laptop, "/push/laptop"],
      [tablet, "/push/tablet"],
    ] as const) {
      const res = await device.post(PUSH_API.subscriptions, {
        endpoint: `${pushService.url}${path}`,
        expirationTime: null,
        keys: newSubscriptionKeys().json,
      });
      expect(res.status).toBe(201);
    }
    pushService.answer("/push/tablet", 500);

    const live = await laptop.live();
    await live.waitFor((received) => received.some((m) => m.type === "ready"));
    const sent = await phone.post(API.messages, textMessage("hello", server.clock.now()));
    expect(sent.status).toBe(201);
    const file = randomBytes(2048);
    const uploadId = await uploadFile(phone, file, metadata("notes.bin", server.clock.now()).header);
    expect((await phone.raw("GET", API.file(uploadId))).status).toBe(200);
    expect((await phone.get(`/api/no-such-route/${randomBytes(8).toString("hex")}`)).status).toBe(404);
    await server.sweeper.sweep();
    // Both messages pushed to both other devices: the tablet's push service refuses.
    await pushService.waitFor(4);
    await eventually(async () => value(await scrape(server.url), "daysync_push_sends_total", { result: "failed" }) >= 2);

    const after = await scrape(server.url);
    const moved = (name: string, labels: Record<string, string> = {}) => value(after, name, labels) - value(before, name, labels);

    expect(requests(after, { method: "POST", route: API.messages, status: "201" })).toBe(1);
    expect(requests(after, { method: "POST", route: API.uploads, status: "201" })).toBe(1);
    expect(requests(after, { method: "PATCH", route: `${API.uploads}/:id`, status: "204" })).toBe(1);
    expect(requests(after, { method: "GET", route: "/api/files/:id", status: "200" })).toBe(1);
    expect(requests(after, { method: "GET", route: "unmatched", status: "404" })).toBe(1);
    expect(family(after, HTTP_HISTOGRAM).type).toBe("HISTOGRAM");
    const routes = new Set(family(after, `${HTTP_HISTOGRAM}_count`).metrics.map((m) => m.labels?.route));
    expect([...routes].filter((route) => route?.includes(uploadId) || route?.includes("no-such-route"))).toEqual([]);

    expect(moved("daysync_messages_sent_total", { space: "day" })).toBe(2);
    expect(moved("daysync_uploads_total")).toBe(1);
    expect(moved("daysync_upload_bytes_total")).toBe(file.length);
    expect(moved("daysync_push_sends_total", { result: "delivered" })).toBe(2);
    expect(moved("daysync_push_sends_total", { result: "failed" })).toBe(2);
    expect(moved("daysync_sweeper_runs_total", { outcome: "ok" })).toBe(1);
    expect(value(after, "daysync_sweeper_last_success_timestamp_seconds")).toBeGreaterThan(0);
    expect(value(before, "daysync_live_connections")).toBe(0);
    expect(value(after, "daysync_live_connections")).toBe(1);
    expect(value(after, "daysync_disk_free_bytes", { volume: "files" })).toBeGreaterThan(0);
    expect(value(after, "daysync_disk_free_bytes", { volume: "data" })).toBeGreaterThan(0);
    expect(value(after, "daysync_bus_errors_total")).toBe(0);
    expect(value(after, "daysync_database_errors_total")).toBe(0);
    // prom-client's process figures: memory and event-loop delay.
    expect(value(after, "process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(value(after, "nodejs_heap_size_used_bytes")).toBeGreaterThan(0);
    expect(family(after, "nodejs_eventloop_lag_p99_seconds").type).toBe("GAUGE");

    live.close();
    await eventually(async () => value(await scrape(server.url), "daysync_live_connections") === 0);
  });

  it("counts a query that fails on the server's database", async () => {
    const before = value(await scrape(server.url), "daysync_database_errors_total");
    await expect(sql`select * from no_such_table`.execute(server.db)).rejects.toThrow();
    expect(value(await scrape(server.url), "daysync_database_errors_total")).toBe(before + 1);
  });

  it.runIf(process.env.REDIS_URL)("counts a bus message that cannot be read as a bus error", async () => {
    const before = value(await scrape(server.url), "daysync_bus_errors_total");
    const redis = new Redis(process.env.REDIS_URL ?? "");
    try {
      await redis.publish(`${server.env.REDIS_PREFIX}bus:change`, "{not json");
    } finally {
      await redis.quit();
    }
    await eventually(async () => value(await scrape(server.url), "daysync_bus_errors_total") === before + 1);
  });
});

describe("GET /metrics off, or on a port of its own", () => {
  it("is the same 404 as any unknown path when neither METRICS_TOKEN nor METRICS_PORT is set", async () => {
    const server = await startTestServer();
    try {
      for (const headers of [{}, { authorization: `Bearer ${TOKEN}` }] as Record<string, string>[]) {
        const res = await fetch(`${server.url}/metrics`, { headers });
        expect(res.status).toBe(404);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe("not_found");
      }
    } finally {
      await server.close();
    }
  });

  it("serves METRICS_PORT without a token, and not on the server's port unless a token is set too", async () => {
    const port = await freePort();
    const server = await startTestServer({ METRICS_PORT: String(port), METRICS_HOST: "127.0.0.1" });
    try {
      const device = new Device(server.url);
      await device.register("Noor", "noor@example.com");
      const families = await scrape(`http://127.0.0.1:${port}`, undefined);
      expect(requests(families, { method: "POST", route: API.register, status: "201" })).toBe(1);
      expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
    } finally {
      await server.close();
    }
    // Closed with the server.
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();

    const both = await startTestServer({ METRICS_PORT: String(await freePort()), METRICS_HOST: "127.0.0.1", METRICS_TOKEN: TOKEN });
    try {
      expect((await fetch(`${both.url}/metrics`)).status).toBe(401);
      expect(family(await scrape(both.url), HTTP_HISTOGRAM).type).toBe("HISTOGRAM");
    } finally {
      await both.close();
    }
  });

  it("refuses to start when METRICS_PORT is taken, naming it", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const address = taken.address();
    const app = Fastify();
    serveMetrics(app, createMetrics(), {
      token: undefined,
      port: typeof address === "object" ? (address?.port ?? 0) : 0,
      host: "127.0.0.1",
    });
    try {
      await expect(app.ready()).rejects.toThrow(/METRICS_PORT \d+: cannot listen on 127\.0\.0\.1 \(.*EADDRINUSE/);
    } finally {
      await app.close();
      taken.close();
    }
  });
});
