import { API } from "@daysync/shared";
import { describe, expect, it } from "vitest";
import { LOG_LEVEL, LogCapture } from "../testing/log-capture.ts";
import { startTestServer } from "../testing/test-server.ts";

/** Starts a server logging at `level`, asks it three things, and gives back what it logged. */
async function logAfterRequests(level: string): Promise<LogCapture> {
  const log = new LogCapture();
  const server = await startTestServer({ LOG_LEVEL: level }, { logStream: log });
  try {
    await fetch(server.url + API.health);
    await fetch(server.url + API.me);
    await fetch(`${server.url}/api/nothing-here`);
  } finally {
    await server.close();
  }
  return log;
}

const requestLines = (log: LogCapture) => log.lines().filter((line) => /request/.test(line.msg ?? "") && "req" in line);

describe("request logs", () => {
  it("are not written per request at the default level", async () => {
    const log = await logAfterRequests("info");
    expect(requestLines(log)).toEqual([]);
    expect(log.atLeast(LOG_LEVEL.warn)).toEqual([]);
  });

  it("are one line per request at debug, with method, path, status and time", async () => {
    const lines = requestLines(await logAfterRequests("debug"));
    expect(lines).toHaveLength(3);
    expect(lines.map((line) => [line.req, line.res])).toEqual([
      [expect.objectContaining({ method: "GET", url: API.health }), { statusCode: 200 }],
      [expect.objectContaining({ method: "GET", url: API.me }), { statusCode: 401 }],
      [expect.objectContaining({ method: "GET", url: "/api/nothing-here" }), { statusCode: 404 }],
    ]);
    expect(lines.every((line) => typeof line.responseTime === "number")).toBe(true);
  });
});
