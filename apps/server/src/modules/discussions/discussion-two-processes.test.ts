/**
 * Two server processes on one database, one Redis and one files folder: members connected to different processes
 * see each other's discussion messages live, and download each other's files.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { API, DISCUSSIONS_API, type ServerLiveMessage } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectDatabase, type Db } from "../../db/database.ts";
import { addMember, createDiscussion } from "../../testing/discussion-factory.ts";
import { type ServerProcess, startServerProcess } from "../../testing/server-process.ts";
import { redisEnv, removeKeys, uniquePrefix } from "../../testing/test-redis.ts";
import { createSchemaFor, Device, textMessage } from "../../testing/test-server.ts";
import { metadata, uploadFile } from "../../testing/tus-client.ts";

const prefix = uniquePrefix();
const dataDir = mkdtempSync(path.join(tmpdir(), "daysync-discussion-scale-"));
let one: ServerProcess;
let two: ServerProcess;
let schema: Awaited<ReturnType<typeof createSchemaFor>> | undefined;
let db: Db;

beforeAll(async () => {
  const suiteDatabase = process.env.DATABASE_URL;
  if (suiteDatabase?.startsWith("postgres")) schema = await createSchemaFor(suiteDatabase, dataDir);
  const env = {
    ...redisEnv(prefix),
    DATA_DIR: dataDir,
    WEB_DIST: path.join(dataDir, "no-web"),
    REGISTER_RATE_LIMIT_MAX: "10000",
    ...(schema ? { DATABASE_URL: schema.url } : {}),
  };
  one = await startServerProcess(env);
  two = await startServerProcess(env);
  db = connectDatabase({ databaseFile: path.join(dataDir, "daysync.sqlite"), databaseUrl: schema?.url });
});
afterAll(async () => {
  await db?.destroy();
  await Promise.all([one?.stop(), two?.stop()]);
  rmSync(dataDir, { recursive: true, force: true });
  await removeKeys(prefix);
  await schema?.drop();
});

const createdWith = (content: string) => (received: ServerLiveMessage[]) =>
  received.some((m) => m.type === "event" && m.event.kind === "discussion.message.created" && m.event.message.content === content);

describe("a discussion across two server processes", () => {
  it("brings each member's messages live to the other, and their files", async () => {
    const alice = new Device(one.url);
    const aliceUser = await alice.register("Alice", `alice-${crypto.randomUUID()}@example.com`);
    const bob = new Device(two.url);
    const bobUser = await bob.register("Bob", `bob-${crypto.randomUUID()}@example.com`);
    const d = await createDiscussion(db, { ownerId: aliceUser.id, ownerName: "Ally", now: Date.now() });
    await addMember(db, d.id, bobUser.id, "Bobby", Date.now());

    const aliceLive = await alice.live();
    const bobLive = await bob.live();
    await aliceLive.waitFor((r) => r.some((m) => m.type === "ready"));
    await bobLive.waitFor((r) => r.some((m) => m.type === "ready"));

    expect((await alice.post(DISCUSSIONS_API.messages(d.id), textMessage("from process one", Date.now()))).status).toBe(201);
    await bobLive.waitFor(createdWith("from process one"));
    expect((await bob.post(DISCUSSIONS_API.messages(d.id), textMessage("from process two", Date.now()))).status).toBe(201);
    await aliceLive.waitFor(createdWith("from process two"));

    const bytes = new Uint8Array(4096).map((_, i) => i % 251);
    const file = metadata("map.bin", Date.now(), crypto.randomUUID(), { discussion_id: d.id });
    const uploadId = await uploadFile(bob, bytes, file.header);
    await aliceLive.waitFor((r) =>
      r.some((m) => m.type === "event" && m.event.kind === "discussion.message.created" && m.event.message.id === file.messageId),
    );
    const download = await alice.raw("GET", API.file(uploadId));
    expect(download.status).toBe(200);
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(bytes);
    aliceLive.close();
    bobLive.close();
  });
});
