import { API } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Device, startTestServer, type TestServer, textMessage } from "../testing/test-server.ts";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe("the send limit of one device", () => {
  it("lets a burst of 100 through, answers the 101st with 429 and Retry-After, and leaves the user's other devices alone", async () => {
    const phone = new Device(server.url);
    await phone.register("Sam", "sam@example.com");
    const laptop = new Device(server.url);
    await laptop.login("sam@example.com");

    for (let batch = 0; batch < 10; batch++) {
      const sent = await Promise.all(
        Array.from({ length: 10 }, (_, i) => phone.post(API.messages, textMessage(`burst ${batch * 10 + i}`, server.clock.now()))),
      );
      expect(sent.map((r) => r.status)).toEqual(Array(10).fill(201));
    }
    const refused = await phone.post(API.messages, textMessage("one too many", server.clock.now()));
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: { code: "rate_limited", message: expect.stringMatching(/^Too many messages\. Try again in \d+ seconds\.$/) },
    });
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(5);

    expect((await laptop.post(API.messages, textMessage("from the laptop", server.clock.now()))).status).toBe(201);
  });

  it("is set by SEND_RATE_LIMIT_MAX and SEND_RATE_LIMIT_WINDOW_MS", async () => {
    const strict = await startTestServer({ SEND_RATE_LIMIT_MAX: "2", SEND_RATE_LIMIT_WINDOW_MS: "60000" });
    try {
      const device = new Device(strict.url);
      await device.register("Tia", "tia@example.com");
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await device.post(API.messages, textMessage(`m${i}`, strict.clock.now()))).status);
      expect(statuses).toEqual([201, 201, 429]);
    } finally {
      await strict.close();
    }
  });
});
