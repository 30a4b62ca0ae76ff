/**
 * Two server processes on one database (as when scaled out): they share data, files and keys, and the database
 * decides every race, so no request of theirs fails with a 500 and the change log stays gap-free.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import path from "node:path";
import { API, type DateMessages, type Message, PUSH_API } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgDatabaseFor } from "../testing/pg-database.ts";
import { Device, startTestServer, type TestServer, textMessage } from "../testing/test-server.ts";
import { create, metadata, offsetOf, patch } from "../testing/tus-client.ts";

const onPostgres = process.env.DATABASE_URL?.startsWith("postgres") ?? false;

let first: TestServer;
let second: TestServer;
beforeAll(async () => {
  first = await startTestServer();
  second = await startTestServer({ DATABASE_URL: first.databaseUrl }, { clock: first.clock });
});
afterAll(async () => {
  await second.close();
  await first.close();
});

/** One device signed in on each process. */
async function devicesOnBoth(email: string): Promise<[Device, Device]> {
  const a = new Device(first.url);
  await a.register("Two", email);
  const b = new Device(second.url);
  await b.login(email);
  return [a, b];
}

const userIdOf = async (email: string) =>
  (await first.db.selectFrom("users").select("id").where("email", "=", email).executeTakeFirstOrThrow()).id;

describe("two processes sharing one database", () => {
  it("continue an upload another process started when they share FILES_DIR, each with a DATA_DIR of its own", async () => {
    const third = await startTestServer(
      { DATABASE_URL: first.databaseUrl, FILES_DIR: path.join(first.dataDir, "files") },
      { clock: first.clock },
    );
    try {
      expect(third.dataDir).not.toBe(first.dataDir);
      const here = new Device(first.url);
      await here.register("Fio", "files-dir@example.com");
      const data = randomBytes(300_000);
      const meta = metadata("shared.bin", first.clock.now());
      const { location } = await create(here, data.length, meta.header);
      await patch(here, location, 0, data.subarray(0, 100_000));

      const there = new Device(third.url);
      there.cookie = here.cookie;
      const { offset } = await offsetOf(there, location);
      expect(offset).toBe(100_000);
      expect((await patch(there, location, offset, data.subarray(offset))).status).toBe(204);
      const day = (await there.get<{ days: DateMessages[] }>(API.days)).body.days[0];
      const list = await here.get<{ messages: Message[] }>(API.dayMessages(day?.id ?? ""));
      const fileUrl = list.body.messages.find((m) => m.id === meta.messageId)?.file_url ?? "";
      const download = await here.raw("GET", fileUrl);
      const digest = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
      expect(digest(new Uint8Array(await download.arrayBuffer()))).toBe(digest(data));
    } finally {
      await third.close();
    }
  });
});

/*
 * Races need PostgreSQL: it is what several processes run on. (Two SQLite connections in one test process would
 * wait for each other's lock on the one thread they share.)
 */
describe.runIf(onPostgres)("two processes writing at once", () => {
  it("store one message when both get the same id at once, answering 201 and 200", async () => {
    const [a, b] = await devicesOnBoth("same-id@example.com");
    for (let round = 0; round < 5; round++) {
      const input = textMessage(`twice ${round}`, first.clock.now());
      const answers = await Promise.all([a.post(API.messages, input), b.post(API.messages, input)]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 201]);
      const rows = await first.db.selectFrom("messages").select("id").where("id", "=", input.id).execute();
      expect(rows).toHaveLength(1);
    }
    const days = await first.db.selectFrom("date_messages").select("count_messages").execute();
    expect(days.reduce((n, d) => n + Number(d.count_messages), 0)).toBeGreaterThanOrEqual(5);
  });

  it("give a message id to one user only when two users send it at once: 201 and 409, never a 500", async () => {
    const ann = new Device(first.url);
    await ann.register("Ann", "race-ann@example.com");
    const bob = new Device(second.url);
    await bob.register("Bob", "race-bob@example.com");
    for (let round = 0; round < 5; round++) {
      const id = randomUUID();
      const now = first.clock.now();
      const answers = await Promise.all([
        ann.post(API.messages, { ...textMessage("ann's", now), id }),
        bob.post(API.messages, { ...textMessage("bob's", now), id }),
      ]);
      expect(answers.map((r) => r.status).sort()).toEqual([201, 409]);
      expect(await first.db.selectFrom("messages").select("user_id").where("id", "=", id).execute()).toHaveLength(1);
    }
  });

  it("let one of two sign-ups with the same email at once win; the other gets 409 email_taken", async () => {
    for (let round = 0; round < 3; round++) {
      const email = `twice-${round}@example.com`;
      const answers = await Promise.all(
        [first, second].map((s) =>
          new Device(s.url).post<{ error?: { code: string } }>(API.register, {
            name: "Twice",
            email,
            password: "correct horse",
            confirm_password: "correct horse",
          }),
        ),
      );
      expect(answers.map((r) => r.status).sort()).toEqual([201, 409]);
      expect(answers.find((r) => r.status === 409)?.body.error?.code).toBe("email_taken");
      expect(await first.db.selectFrom("users").select("id").where("email", "=", email).execute()).toHaveLength(1);
    }
  });

  it("number a user's changes without gaps or repeats when both processes write at once", async () => {
    const email = "busy@example.com";
    const [a, b] = await devicesOnBoth(email);
    const sends = Array.from({ length: 30 }, (_, i) =>
      (i % 2 ? a : b).post<{ message: Message }>(API.messages, textMessage(`busy ${i}`, first.clock.now())),
    );
    // Devices signing in meanwhile, on either process, append changes too.
    const signIns = [first, second].map((s) => new Device(s.url).login(email));
    const answers = await Promise.all(sends);
    await Promise.all(signIns);
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 201));

    const userId = await userIdOf(email);
    const events = await first.db.selectFrom("user_events").select("seq").where("user_id", "=", userId).orderBy("seq").execute();
    const seqs = events.map((e) => Number(e.seq));
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    const user = await first.db.selectFrom("users").select("seq").where("id", "=", userId).executeTakeFirstOrThrow();
    expect(Number(user.seq)).toBe(seqs.length);
    // One change per message (its event carries its day), one per sign-in.
    expect(seqs.length).toBeGreaterThanOrEqual(32);
  });

  it("start together on an empty database: one migration, one VAPID key pair", async () => {
    const fresh = await createPgDatabaseFor(process.env.DATABASE_URL ?? "", `${first.dataDir}-fresh`);
    const servers = await Promise.all([0, 1, 2].map(() => startTestServer({ DATABASE_URL: fresh.url })));
    try {
      const keys = await Promise.all(
        servers.map(async (s, i) => {
          const d = new Device(s.url);
          await d.register("Start", `start-${i}@example.com`);
          return (await d.get<{ public_key: string }>(PUSH_API.publicKey)).body.public_key;
        }),
      );
      expect(new Set(keys).size).toBe(1);
    } finally {
      for (const s of servers) await s.close();
      await fresh.drop();
    }
  });

  // Last: it moves the shared clock on by two months.
  it("delete each expired message and renew each plan once when both sweep at the same time", async () => {
    const email = "swept-twice@example.com";
    const [a] = await devicesOnBoth(email);
    const sent = [];
    for (let i = 0; i < 4; i++)
      sent.push((await a.post<{ message: Message }>(API.messages, textMessage(`old ${i}`, first.clock.now()))).body);
    first.clock.advance(61 * 24 * 60 * 60 * 1000);
    const userId = await userIdOf(email);
    const eventsBefore = Number((await first.db.selectFrom("users").select("seq").where("id", "=", userId).executeTakeFirstOrThrow()).seq);

    await Promise.all([first.sweeper.sweep(), second.sweeper.sweep()]);

    expect(await first.db.selectFrom("messages").select("id").where("user_id", "=", userId).execute()).toEqual([]);
    const events = await first.db
      .selectFrom("user_events")
      .select(["kind", "ref"])
      .where("user_id", "=", userId)
      .where("seq", ">", eventsBefore)
      .execute();
    const deletedIds = events.filter((e) => e.kind === "messages.deleted").flatMap((e) => JSON.parse(e.ref) as string[]);
    expect(deletedIds.sort()).toEqual(sent.map((m) => m.message.id).sort());
    expect(events.filter((e) => e.kind === "user.updated")).toHaveLength(1);
    const subscriptions = await first.db.selectFrom("subscriptions").select("id").where("user_id", "=", userId).execute();
    expect(subscriptions).toHaveLength(2);
  });
});
