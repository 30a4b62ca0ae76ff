/**
 * The terminal opens what the account's other devices seal (docs/protocol/encryption.md, "Sealed messages"): `ls`, `days`, `get`, `search`
 * and `watch` print the text, in --json too, and never a sealed value; a value a server-side attacker changed prints
 * "This message could not be decrypted", `ls` then exits with EXIT.undecryptable, and `watch` goes on.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { type DateMessages, DEVICES_API, SEALED_TEXT } from "@daysync/shared";
import { fromBase64Url, toBase64Url } from "@daysync/shared/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../server/src/testing/test-server.ts";
import type { ListedMessage } from "../src/commands/list.ts";
import type { FoundMessage } from "../src/commands/search.ts";
import type { WatchedMessage } from "../src/commands/watch.ts";
import { EXIT } from "../src/errors.ts";
import { type CliProcess, removeTempDirs, type Terminal, tempDir } from "./cli-process.ts";
import { type KeyHolder, keptInClear, keyHolder, pairedTerminal, sendSealed } from "./key-holder.ts";

let server: TestServer;
let holder: KeyHolder;
let terminal: Terminal;
beforeAll(async () => {
  server = await startTestServer();
  holder = await keyHolder(server.url, "cleo@example.com");
  terminal = await pairedTerminal(server.url, holder);
});
afterAll(async () => {
  await server.close();
  await removeTempDirs();
});

const SEALED = /v1\.\d+\.[A-Za-z0-9_-]{20}/;

/** The key holder's message, a second after the previous one (search orders by creation time). */
function sealedByHolder(content: string): Promise<string> {
  server.clock.advance(1000);
  return sendSealed(holder, content, server.clock.now());
}

/** A text in clear the server wrote into the account after it was keyed (docs/protocol/encryption.md). */
function inClearByHolder(content: string): Promise<string> {
  server.clock.advance(1000);
  return keptInClear(server, holder.device, content, server.clock.now());
}

/** Flips one byte of the stored sealed content, as someone with the database could. */
async function tamper(id: string) {
  const row = await server.db.selectFrom("messages").select("content").where("id", "=", id).executeTakeFirstOrThrow();
  const [version, epoch, sealed] = row.content.split(".");
  const bytes = fromBase64Url(sealed ?? "");
  bytes[bytes.length - 20] = (bytes[bytes.length - 20] ?? 0) ^ 0x01;
  await server.db
    .updateTable("messages")
    .set({ content: `${version}.${epoch}.${toBase64Url(bytes)}` })
    .where("id", "=", id)
    .execute();
}

async function startWatching(): Promise<CliProcess> {
  const cli = terminal.spawn(["watch", "--json"]);
  // A CLI process starting on a loaded machine has taken over the default 10 s.
  await cli.waitFor(/Watching for new messages/, { stream: "stderr", timeoutMs: 30_000 });
  return cli;
}

const waitForLines = (cli: CliProcess, count: number) => cli.waitFor(new RegExp(`^(\\{.*\\}\\n){${count}}`), { timeoutMs: 15_000 });

describe("what another device sealed, on the terminal", () => {
  let meeting: string;
  let older: string;
  let clear: string;

  it("ls, days and get print the text opened, in --json too, and no sealed value", async () => {
    older = await sealedByHolder("Blue door, second floor");
    clear = await inClearByHolder("the blue door was sent in clear");
    meeting = await sealedByHolder("Meet at the BLUE DOOR at 7");

    const json = await terminal.run(["ls", "--json"]);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).not.toMatch(SEALED);
    const listed = JSON.parse(json.stdout) as ListedMessage[];
    expect(listed.map((m) => [m.id, m.content, m.error])).toEqual([
      [older, "Blue door, second floor", undefined],
      [clear, "", SEALED_TEXT.notEncrypted],
      [meeting, "Meet at the BLUE DOOR at 7", undefined],
    ]);
    expect(listed[2]).toMatchObject({ epoch: 1, preview: "Meet at the BLUE DOOR at 7", size: 26 });

    const table = await terminal.run(["ls"]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(new RegExp(`${meeting}\\s+Meet at the BLUE DOOR at 7`));

    const days = await terminal.run(["days", "--json"]);
    expect(days.code, days.stderr).toBe(0);
    expect((JSON.parse(days.stdout) as DateMessages[])[0]?.last_message).toBe("Meet at the BLUE DOOR at 7");
    expect((await terminal.run(["days"])).stdout).toContain("Meet at the BLUE DOOR at 7");

    const got = await terminal.run(["get", meeting]);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toBe("Meet at the BLUE DOOR at 7");
  });

  it("search finds sealed messages on the terminal, whatever the case, merged with the server's results newest first", async () => {
    const out = await terminal.run(["search", "blue", "door", "--json"]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).not.toMatch(SEALED);
    const found = JSON.parse(out.stdout) as FoundMessage[];
    // Two sealed (only the terminal can match them); the one in clear the server wrote is not the person's.
    expect(found.map((r) => r.message.id)).toEqual([meeting, older]);
    expect(found[0]?.message.content).toBe("Meet at the BLUE DOOR at 7");
    expect(found[0]?.day.last_message).toBe("Meet at the BLUE DOOR at 7");

    const table = await terminal.run(["search", "SECOND FLOOR"]);
    expect(table.stdout).toMatch(new RegExp(`${older}\\s+Blue door, second floor`));
    expect((await terminal.run(["search", "v1."])).stdout).toContain('Nothing found for "v1.".');
  });

  it("a changed sealed value prints as undecryptable: ls prints everything, then exits with EXIT.undecryptable", async () => {
    const bad = await sealedByHolder("marker-33aa soon changed on the server");
    await tamper(bad);

    const table = await terminal.run(["ls"]);
    expect(table.code).toBe(EXIT.undecryptable);
    expect(table.stdout).toMatch(new RegExp(`${bad}\\s+${SEALED_TEXT.undecryptable}`));
    expect(table.stdout).toContain("Meet at the BLUE DOOR at 7");
    expect(table.stdout).not.toContain("marker-33aa");
    expect(table.stderr).toContain("1 message could not be decrypted.");

    const json = await terminal.run(["ls", "--json"]);
    expect(json.code).toBe(EXIT.undecryptable);
    expect(json.stdout).not.toMatch(SEALED);
    expect((JSON.parse(json.stdout) as ListedMessage[]).find((m) => m.id === bad)).toMatchObject({
      content: "",
      error: SEALED_TEXT.undecryptable,
      size: null,
    });

    const got = await terminal.run(["get", bad]);
    expect(got.code).toBe(EXIT.undecryptable);
    expect(got.stdout).toBe("");
    expect(got.stderr).toContain(SEALED_TEXT.undecryptable);
  });
});

describe("daysync watch and sealed messages", () => {
  it("--json prints each sealed message opened; a changed one as an error, and it keeps watching", async () => {
    const cli = await startWatching();
    await sealedByHolder("marker-5b1c watched");
    await waitForLines(cli, 1);
    await cli.kill();

    // Changed while no watch ran: the next one replays it from the changed row.
    const bad = await sealedByHolder("marker-0dd0 changed before it is watched");
    await tamper(bad);
    const next = await startWatching();
    await waitForLines(next, 1);
    await sealedByHolder("marker-6f02 after the bad one");
    await waitForLines(next, 2);
    const lines = [...cli.jsonLines<WatchedMessage>(), ...next.jsonLines<WatchedMessage>()];
    expect(lines.map((m) => [m.content, m.error])).toEqual([
      ["marker-5b1c watched", undefined],
      ["", SEALED_TEXT.undecryptable],
      ["marker-6f02 after the bad one", undefined],
    ]);
    expect(cli.stdout + next.stdout).not.toMatch(SEALED);
    expect(next.child.exitCode).toBeNull();
    await next.kill();
  });

  it("a text in clear the server wrote into the keyed account is marked, and never passed to --exec", async () => {
    const out = path.join(tempDir("exec-clear"), "out.txt");
    const cli = terminal.spawn(["watch", "--json", "--exec", `cat >> '${out}'; echo >> '${out}'`]);
    await cli.waitFor(/Watching for new messages/, { stream: "stderr", timeoutMs: 30_000 });
    await inClearByHolder("marker-c1ea written by the server");
    await sealedByHolder("marker-5ea1 sealed after it");
    await waitForLines(cli, 2);
    expect(cli.jsonLines<WatchedMessage>().map((m) => [m.content, m.error])).toEqual([
      ["", SEALED_TEXT.notEncrypted],
      ["marker-5ea1 sealed after it", undefined],
    ]);
    // --exec runs one message at a time: the sealed one's command has written once its output is there.
    for (const deadline = Date.now() + 15_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
      if (existsSync(out) && readFileSync(out, "utf8").includes("marker-5ea1")) break;
    }
    expect(readFileSync(out, "utf8")).toBe("marker-5ea1 sealed after it\n");
    expect(cli.stdout).toContain(SEALED_TEXT.notEncrypted);
    await cli.kill();
  });

  it("after a key holder is removed and the key rotates (key.rotation_due, key.epoch_created) it opens the next epoch's messages", async () => {
    const leaving = await pairedTerminal(server.url, holder);
    const devices = JSON.parse((await leaving.run(["devices", "--json"])).stdout) as Array<{ id: string; current: boolean }>;
    const cli = await startWatching();
    expect((await holder.device.request("DELETE", DEVICES_API.one(devices.find((d) => d.current)?.id ?? ""))).status).toBe(204);
    await holder.sync();
    expect(holder.sealer.epoch).toBe(2);
    await sealedByHolder("marker-a7e2 under epoch 2");
    await waitForLines(cli, 1);
    expect(cli.jsonLines<WatchedMessage>()).toMatchObject([{ epoch: 2, content: "marker-a7e2 under epoch 2" }]);
    await cli.kill();
  });
});
