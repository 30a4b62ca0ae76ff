/** Discussions over two server processes on one database and one Redis, as when scaled out. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DISCUSSIONS_API, type DiscussionDetails, type ServerLiveMessage } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServerProcess, startServerProcess } from "../../testing/server-process.ts";
import { redisEnv, removeKeys, uniquePrefix } from "../../testing/test-redis.ts";
import { createSchemaFor, Device } from "../../testing/test-server.ts";

const prefix = uniquePrefix();
const dataDir = mkdtempSync(path.join(tmpdir(), "daysync-discussions-scale-"));
let one: ServerProcess;
let two: ServerProcess;
let schema: Awaited<ReturnType<typeof createSchemaFor>> | undefined;

beforeAll(async () => {
  const suiteDatabase = process.env.DATABASE_URL;
  if (suiteDatabase?.startsWith("postgres")) schema = await createSchemaFor(suiteDatabase, dataDir);
  const env = {
    ...redisEnv(prefix),
    DATA_DIR: dataDir,
    WEB_DIST: path.join(dataDir, "no-web"),
    REGISTER_RATE_LIMIT_MAX: "10000",
    DISCUSSION_JOIN_RATE_LIMIT_MAX: "3",
    ...(schema ? { DATABASE_URL: schema.url } : {}),
  };
  one = await startServerProcess(env);
  two = await startServerProcess(env);
});
afterAll(async () => {
  await Promise.all([one?.stop(), two?.stop()]);
  rmSync(dataDir, { recursive: true, force: true });
  await removeKeys(prefix);
  await schema?.drop();
});

const upsertedMembers = (received: ServerLiveMessage[]) =>
  received.flatMap((m) => (m.type === "event" && m.event.kind === "discussion.upserted" ? [m.event.members.length] : []));

describe("discussions on two processes", () => {
  it("tells a member on one process of a join on the other, and counts join tries across both", async () => {
    const ann = new Device(one.url);
    await ann.register("Ann", `ann-${crypto.randomUUID()}@example.com`);
    const annLive = await ann.live();
    await annLive.waitFor((r) => r.some((m) => m.type === "ready"));
    const created = await ann.post<DiscussionDetails>(DISCUSSIONS_API.list, { title: "Both", display_name: "Ann" });
    const { public_id } = created.body.discussion;

    const email = `bob-${crypto.randomUUID()}@example.com`;
    const bobOnTwo = new Device(two.url);
    await bobOnTwo.register("Bob", email);
    // The same session on the other process: one device behind a load balancer.
    const bobOnOne = new Device(one.url);
    bobOnOne.cookie = bobOnTwo.cookie;

    expect((await bobOnTwo.post(DISCUSSIONS_API.join("AAAAAAAAAA"), { display_name: "Bob" })).status).toBe(404);
    expect((await bobOnOne.post(DISCUSSIONS_API.join("BBBBBBBBBB"), { display_name: "Bob" })).status).toBe(404);
    expect((await bobOnTwo.post(DISCUSSIONS_API.join(public_id), { display_name: "Bob" })).status).toBe(201);
    await annLive.waitFor((r) => upsertedMembers(r).includes(2), 5000);
    expect((await bobOnOne.post(DISCUSSIONS_API.join(public_id), { display_name: "Bob" })).status).toBe(429);
    annLive.close();
  });
});
