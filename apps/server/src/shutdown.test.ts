import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServerProcess, startServerProcess } from "./testing/server-process.ts";
import { Device } from "./testing/test-server.ts";
import { create, metadata, TUS } from "./testing/tus-client.ts";

let dataDir: string;
let server: ServerProcess;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "daysync-shutdown-"));
  server = await startServerProcess({ DATA_DIR: dataDir });
});
afterAll(async () => {
  await server.stop("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

describe("SIGTERM", () => {
  it("closes live sockets with 1001 at once, lets a request in flight finish, then exits", async () => {
    const device = new Device(server.url);
    await device.register("Sid", "sid@example.com");
    const live = await device.live(0);
    await live.waitFor((received) => received.some((m) => m.type === "ready"));

    // An upload whose body is still arriving when the signal comes.
    const half = new Uint8Array(64 * 1024).fill(7);
    const { location } = await create(device, half.length * 2, metadata("slow.bin", Date.now()).header);
    let finishBody: () => void = () => {};
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(half);
        finishBody = () => {
          controller.enqueue(half);
          controller.close();
        };
      },
    });
    const patched = fetch(server.url + location, {
      method: "PATCH",
      headers: { ...TUS, cookie: device.cookie, "upload-offset": "0", "content-type": "application/offset+octet-stream" },
      body,
      duplex: "half",
    } as RequestInit);
    await new Promise((r) => setTimeout(r, 200));

    const stopped = server.stop("SIGTERM");
    expect(await live.waitForClose(5_000)).toBe(1001);
    finishBody();
    expect((await patched).status).toBe(204);
    await stopped;
    await expect(fetch(`${server.url}/api/health`)).rejects.toThrow();
  });
});
