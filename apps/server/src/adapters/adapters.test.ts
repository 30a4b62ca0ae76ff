import { describe, expect, it } from "vitest";
import { loadConfig } from "../config/config.ts";
import { createAdapters } from "./adapters.ts";

describe("adapters factory", () => {
  it("keeps everything in memory without REDIS_URL", async () => {
    const adapters = await createAdapters(loadConfig({}));
    expect(adapters.tusLocker).toBeUndefined();
    expect(adapters.rateLimitStore).toBeUndefined();
    await adapters.close();
  });

  it("refuses a REDIS_URL that is not a URL, at boot", () => {
    expect(() => loadConfig({ REDIS_URL: "localhost" })).toThrow(/REDIS_URL/);
  });

  it("stops the boot, naming REDIS_URL, when Redis cannot be reached", async () => {
    // Port 1 is reserved (tcpmux) and closed on any test machine.
    const config = loadConfig({ REDIS_URL: "redis://127.0.0.1:1" });
    await expect(createAdapters(config)).rejects.toThrow(/REDIS_URL: cannot connect to Redis \(connect ECONNREFUSED/);
  });
});
