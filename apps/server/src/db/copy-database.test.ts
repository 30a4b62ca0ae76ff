/** `npm run admin -- copy-to-postgres`: a SQLite installation moved into PostgreSQL keeps working as it was. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { API, type DateMessages, type Message, PUSH_API } from "@daysync/shared";
import { describe, expect, it } from "vitest";
import { runAdmin } from "../admin.ts";
import { createPgDatabaseFor } from "../testing/pg-database.ts";
import { Device, startTestServer, type TestClock, textMessage } from "../testing/test-server.ts";
import { COPIED_TABLES } from "./copy-database.ts";

const suiteDatabase = process.env.DATABASE_URL ?? "";

// On SQLite only: PostgreSQL's introspection sees every test server's schema, and the tables are the same on both.
it.runIf(!suiteDatabase.startsWith("postgres"))(
  "copies every table the migrations make, but the plans they fill in themselves",
  async () => {
    const server = await startTestServer();
    try {
      const tables = (await server.db.introspection.getTables()).map((t) => t.name);
      const own = tables.filter((name) => !name.startsWith("kysely_") && name !== "subscriptions_types");
      expect(COPIED_TABLES.map(([table]) => table).sort()).toEqual(own.sort());
    } finally {
      await server.close();
    }
  },
);

describe.runIf(suiteDatabase.startsWith("postgres"))("copying a SQLite installation into PostgreSQL", () => {
  it("copies every account, message, change and the push keys; the copy serves them and carries on", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "daysync-copy-"));
    const file = path.join(dataDir, "daysync.sqlite");
    const source = await startTestServer({ DATABASE_URL: pathToFileURL(file).href }, { dataDir });
    const ann = new Device(source.url);
    await ann.register("Ann", "copy-ann@example.com");
    for (const text of ["one", "two", "three"]) {
      source.clock.advance(1000);
      expect((await ann.post(API.messages, textMessage(text, source.clock.now()))).status).toBe(201);
    }
    expect((await runAdmin(["plan", "set", "copy-ann@example.com", "premium"], source.env)).code).toBe(0);
    const key = (await ann.get<{ public_key: string }>(PUSH_API.publicKey)).body.public_key;
    const daysBefore = (await ann.get<{ days: DateMessages[] }>(API.days)).body.days;
    const seqBefore = Number((await source.db.selectFrom("users").select("seq").executeTakeFirstOrThrow()).seq);
    await source.close({ keepData: true });

    const target = await createPgDatabaseFor(suiteDatabase, dataDir);
    const copy = await startTestServerAfterCopy(file, target.url, source.clock);
    try {
      expect(copy.report.code).toBe(0);
      expect(copy.report.output).toContain("messages: 3");
      const again = new Device(copy.server.url);
      await again.login("copy-ann@example.com");
      expect((await again.get<{ days: DateMessages[] }>(API.days)).body.days).toEqual(daysBefore);
      const dayId = daysBefore[0]?.id ?? "";
      const messages = (await again.get<{ messages: Message[] }>(API.dayMessages(dayId))).body.messages;
      expect(messages.map((m) => m.content)).toEqual(["one", "two", "three"]);
      expect((await again.get<{ user: { title_subscription: string } }>(API.me)).body.user.title_subscription).toBe("Premium plan");
      expect((await again.get<{ public_key: string }>(PUSH_API.publicKey)).body.public_key).toBe(key);
      // The change log carries on from where it was: a device that was up to date misses nothing.
      expect((await again.post(API.messages, textMessage("four", copy.server.clock.now()))).status).toBe(201);
      const seqAfter = Number((await copy.server.db.selectFrom("users").select("seq").executeTakeFirstOrThrow()).seq);
      expect(seqAfter).toBeGreaterThan(seqBefore);
      const events = await copy.server.db.selectFrom("user_events").select("seq").orderBy("seq").execute();
      expect(events.map((e) => Number(e.seq))).toEqual(Array.from({ length: seqAfter }, (_, i) => i + 1));

      const twice = await runAdmin(["copy-to-postgres", "--from", file, "--to", target.url]);
      expect(twice).toEqual({ code: 1, output: "The target database already has accounts; copy into an empty database only." });
    } finally {
      await copy.server.close();
      await target.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("answers a wrong invocation with its usage", async () => {
    expect((await runAdmin(["copy-to-postgres", "--from", "x.sqlite"])).code).toBe(2);
    expect(await runAdmin(["copy-to-postgres", "--from", "/nowhere/x.sqlite", "--to", suiteDatabase])).toEqual({
      code: 1,
      output: "No SQLite file at /nowhere/x.sqlite.",
    });
  });
});

async function startTestServerAfterCopy(file: string, url: string, clock: TestClock) {
  const report = await runAdmin(["copy-to-postgres", "--from", file, "--to", url]);
  const server = await startTestServer({ DATABASE_URL: url }, { clock });
  return { report, server };
}
