import { copyFileSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import SQLite from "better-sqlite3";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { checkpointInBackground } from "./background-checkpoint.ts";
import { openDatabase } from "./database.ts";

const dirs: string[] = [];
function tempFile(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "daysync-checkpoint-"));
  dirs.push(dir);
  return path.join(dir, "db.sqlite");
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function walConnection(file: string): SQLite.Database {
  const sqlite = new SQLite(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.exec("create table notes (text text not null)");
  return sqlite;
}

/** About 2 MB written in one transaction: pages that reach the database file only through a checkpoint. */
function writeLots(sqlite: SQLite.Database) {
  const insert = sqlite.prepare("insert into notes values (?)");
  sqlite.transaction(() => {
    for (let i = 0; i < 500; i++) insert.run("x".repeat(4000));
  })();
}

async function until(check: () => boolean, ms = 5000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 25))) if (check()) return true;
  return check();
}

describe("checkpoints in a worker thread", () => {
  it("copies the log into the database file without the connection that commits", async () => {
    const file = tempFile();
    const sqlite = walConnection(file);
    const failures: string[] = [];
    const checkpoint = checkpointInBackground(sqlite, file, { onFailure: (reason) => failures.push(reason), intervalMs: 50 });
    expect(sqlite.pragma("wal_autocheckpoint", { simple: true })).toBe(0);
    const before = statSync(file).size;
    writeLots(sqlite);
    expect(await until(() => statSync(file).size > before + 1_000_000)).toBe(true);
    await checkpoint.stop();
    sqlite.close();
    expect(failures).toEqual([]);
  });

  it("starts the log over while writes keep coming, in a quiet moment of the connection", async () => {
    const file = tempFile();
    const sqlite = walConnection(file);
    // The server's connection as Kysely runs it: one query or transaction at a time, the others wait their turn.
    let turn = Promise.resolve();
    const inTurn = (work: () => Promise<void>) => {
      const done = turn.then(work);
      turn = done.catch(() => {});
      return done;
    };
    let quietMoments = 0;
    const checkpoint = checkpointInBackground(sqlite, file, {
      onFailure: () => {},
      intervalMs: 10,
      behindFrames: 50,
      whileQuiet: (work) => inTurn(() => work().then(() => void quietMoments++)),
    });
    const insert = sqlite.prepare("insert into notes values (?)");
    const note = "x".repeat(100);
    // Once the worker runs: about 6,000 pages (24 MB) in transactions that, as the server's do, span turns of the
    // event loop and follow each other at once, so one is always under way when a checkpoint ends.
    const before = statSync(file).size;
    insert.run(note);
    expect(await until(() => statSync(file).size > before)).toBe(true);
    for (let i = 0; i < 6000; i++) {
      await inTurn(async () => {
        sqlite.exec("begin");
        await new Promise((resolve) => setImmediate(resolve));
        insert.run(note);
        sqlite.exec("commit");
      });
    }
    // The log reached its limit and started over, instead of holding every page written (24 MB). How far it ran
    // ahead of the worker depends on the machine: 14 MB on CI beside another test run, under 12 MB when quiet.
    expect(statSync(`${file}-wal`).size).toBeLessThan(18_000_000);
    expect(quietMoments).toBeGreaterThan(0);
    await checkpoint.stop();
    sqlite.close();
  });

  it("leaves the checkpoints to the connection itself when the worker cannot run", async () => {
    const file = tempFile();
    const sqlite = walConnection(file);
    const failures: string[] = [];
    checkpointInBackground(sqlite, path.join(path.dirname(file), "missing", "db.sqlite"), {
      onFailure: (reason) => failures.push(reason),
      intervalMs: 50,
    });
    expect(await until(() => failures.length > 0)).toBe(true);
    expect(failures[0]).toMatch(/directory does not exist/);
    expect(sqlite.pragma("wal_autocheckpoint", { simple: true })).toBe(1000);
    sqlite.close();
  });

  it("runs under the server's database, and stops with it", async () => {
    const file = tempFile();
    const db = await openDatabase({ databaseFile: file });
    await sql`create table notes (text text not null)`.execute(db);
    const before = statSync(file).size;
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < 500; i++) await sql`insert into notes values (${"x".repeat(4000)})`.execute(trx);
    });
    expect(await until(() => statSync(file).size > before + 1_000_000)).toBe(true);
    await db.destroy();
  });

  it("closes the worker's connection before it returns from stop, so the server's connection is the last", async () => {
    const file = tempFile();
    const sqlite = walConnection(file);
    const checkpoint = checkpointInBackground(sqlite, file, { onFailure: () => {}, intervalMs: 20 });
    const before = statSync(file).size;
    writeLots(sqlite);
    // The worker has its connection open once it has checkpointed.
    expect(await until(() => statSync(file).size > before + 1_000_000)).toBe(true);
    const stopped = checkpoint.stop();
    // No other connection is left: leaving WAL mode needs the database to itself.
    sqlite.pragma("busy_timeout = 0");
    expect(sqlite.pragma("journal_mode = DELETE", { simple: true })).toBe("delete");
    sqlite.close();
    await stopped;
  });

  it("opens nothing once its server's connection has stopped, and never creates a database file", async () => {
    const file = tempFile();
    const sqlite = walConnection(file);
    // Stopped at once, as an admin command's database is: the worker may boot only afterwards.
    const stopped = checkpointInBackground(sqlite, file, { onFailure: () => {}, intervalMs: 20 }).stop();
    sqlite.close();
    rmSync(file);
    await stopped;
    await new Promise((r) => setTimeout(r, 200));
    expect(readdirSync(path.dirname(file))).toEqual([]);
  });

  it("leaves a database file complete without its log as soon as it stops", async () => {
    const file = tempFile();
    const sqlite = walConnection(file);
    // Far apart enough that the worker has not checkpointed anything yet.
    const checkpoint = checkpointInBackground(sqlite, file, { onFailure: () => {}, intervalMs: 60_000 });
    sqlite.prepare("insert into notes values ('written just before the stop')").run();
    const stopped = checkpoint.stop();
    const copy = path.join(path.dirname(file), "copy.sqlite");
    copyFileSync(file, copy);
    const alone = new SQLite(copy, { readonly: true });
    expect(alone.prepare("select text from notes").pluck().all()).toEqual(["written just before the stop"]);
    alone.close();
    await stopped;
    sqlite.close();
  });
});
