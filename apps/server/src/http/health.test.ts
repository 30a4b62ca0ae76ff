import { renameSync } from "node:fs";
import { API } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../testing/test-server.ts";
import { READY_RATE_LIMIT } from "./health.ts";

async function get(url: string) {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as unknown };
}

describe("health for load balancers and orchestrators", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it("answers live while the process answers, at /api/health/live and /api/health", async () => {
    expect(await get(`${server.url}${API.healthLive}`)).toEqual({ status: 200, body: { ok: true } });
    expect(await get(`${server.url}/api/health`)).toEqual({ status: 200, body: { ok: true } });
  });

  it("is ready when the database, Redis (when configured) and the files folder work, naming each", async () => {
    const checks = { database: "ok", files: "ok", ...(server.env.REDIS_URL ? { redis: "ok" } : {}) };
    expect(await get(`${server.url}${API.healthReady}`)).toEqual({ status: 200, body: { ok: true, checks } });
  });

  it("is not ready (503, naming it) while the files folder cannot be written, and ready again once it can", async () => {
    const files = `${server.dataDir}/files`;
    renameSync(files, `${files}-unmounted`);
    try {
      const { status, body } = await get(`${server.url}${API.healthReady}`);
      expect(status).toBe(503);
      expect(body).toMatchObject({ ok: false, checks: { database: "ok", files: "failed" } });
    } finally {
      renameSync(`${files}-unmounted`, files);
    }
    expect((await get(`${server.url}${API.healthReady}`)).status).toBe(200);
  });
});

it("is not ready (503, naming the database) once the database is closed, and still live", async () => {
  const server = await startTestServer();
  try {
    await server.db.destroy();
    const { status, body } = await get(`${server.url}${API.healthReady}`);
    expect(status).toBe(503);
    expect(body).toMatchObject({ ok: false, checks: { database: "failed", files: "ok" } });
    expect((await get(`${server.url}${API.healthLive}`)).status).toBe(200);
  } finally {
    await server.close();
  }
});

it("answers 429 JSON to the request past READY_RATE_LIMIT within its window: each check reaches the database, Redis and the disk", async () => {
  const server = await startTestServer();
  try {
    const url = `${server.url}${API.healthReady}`;
    for (let i = 0; i < READY_RATE_LIMIT.max; i++) expect((await get(url)).status, `request ${i + 1}`).toBe(200);
    const res = await fetch(url);
    expect(res.status).toBe(429);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.json()).toMatchObject({ error: { code: "rate_limited", message: expect.any(String) } });
    expect((await get(`${server.url}${API.healthLive}`)).status).toBe(200);
  } finally {
    await server.close();
  }
});
