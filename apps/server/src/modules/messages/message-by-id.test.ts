import { randomUUID } from "node:crypto";
import { API, responseSchemas } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Device, startTestServer, type TestServer, textMessage } from "../../testing/test-server.ts";

let server: TestServer;
let ann: Device;
let bob: Device;
beforeAll(async () => {
  server = await startTestServer();
  ann = new Device(server.url);
  await ann.register("Ann", "ann@example.com");
  bob = new Device(server.url);
  await bob.register("Bob", "bob@example.com");
});
afterAll(() => server.close());

describe("GET /api/messages/:id", () => {
  it("answers one message of the user with its day, in the shape of a send's answer", async () => {
    const input = textMessage("one of many", server.clock.now());
    const sent = await ann.post(API.messages, input);
    const res = await ann.get(API.message(input.id));
    expect(res.status).toBe(200);
    expect(res.body).toEqual(sent.body);
    expect(responseSchemas.message.parse(res.body).message.content).toBe("one of many");
  });

  it("is 404 for another user's message, an unknown id and an expired message", async () => {
    const input = textMessage("Ann's alone", server.clock.now());
    await ann.post(API.messages, input);
    expect((await bob.get(API.message(input.id))).status).toBe(404);
    expect((await ann.get(API.message(randomUUID()))).body).toEqual({ error: { code: "not_found", message: "No such message." } });
    // Free plan: a message lives 15 minutes.
    server.clock.advance(16 * 60_000);
    expect((await ann.get(API.message(input.id))).status).toBe(404);
  });

  it("is 400 for an id that is not a UUID and 401 without a session", async () => {
    const bad = await ann.get(API.message("nope"));
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: "validation", message: "Message id must be a UUID." } });
    expect((await new Device(server.url).get(API.message(randomUUID()))).status).toBe(401);
  });
});
