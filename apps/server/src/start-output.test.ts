import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { API } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addressToOpen } from "./app/address-to-open.ts";
import { NO_ADMIN_NOTICE } from "./modules/admin/admin.service.ts";
import { type ServerProcess, startServerProcess } from "./testing/server-process.ts";

let dataDir: string;
let server: ServerProcess;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "daysync-start-"));
  // The default log level, as `npm start` runs it.
  server = await startServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: "info" }, { captureOutput: true });
});
afterAll(async () => {
  await server.stop("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

describe("what the server prints", () => {
  it("says on one plain line where to open it, and nothing for each request", async () => {
    for (let i = 0; i < 3; i++) expect((await fetch(server.url + API.health)).status).toBe(200);
    await fetch(server.url + API.me);
    // The pipe may deliver the line after the answers: wait for its end, then for anything more to arrive.
    for (const deadline = Date.now() + 10_000; !server.output().endsWith("\n") && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await fetch(server.url + API.health);
    // A new installation has no admin yet, and says how it gets one.
    expect(server.output()).toBe(`Daysync is running at ${server.url}\n${NO_ADMIN_NOTICE}\n`);
  });

  it("says nothing of admins once there is one", async () => {
    const registered = await fetch(server.url + API.register, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Owner", email: "owner@example.com", password: "correct horse", confirm_password: "correct horse" }),
    });
    expect(registered.status).toBe(201);
    await server.stop("SIGTERM");
    server = await startServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: "info" }, { captureOutput: true });
    for (const deadline = Date.now() + 10_000; !server.output().endsWith("\n") && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await fetch(server.url + API.health);
    expect(server.output()).toBe(`Daysync is running at ${server.url}\n`);
  });

  it("names localhost when it listens on every interface", () => {
    expect(addressToOpen("0.0.0.0", 8080)).toBe("http://localhost:8080");
    expect(addressToOpen("::", 8080)).toBe("http://localhost:8080");
    expect(addressToOpen("192.168.1.5", 3000)).toBe("http://192.168.1.5:3000");
    expect(addressToOpen("::1", 3000)).toBe("http://[::1]:3000");
  });
});
