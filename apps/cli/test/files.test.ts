/**
 * `daysync send --file` and `get` (docs/protocol/encryption.md, "File records"): files go sealed, resume after a kill or a dropped
 * connection from the server's offset (a record boundary), and come back byte for byte under their own name.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { API, type Message } from "@daysync/shared";
import { SEALED_RECORD_SIZE, sealedLength } from "@daysync/shared/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../server/src/testing/test-server.ts";
import type { ListedMessage } from "../src/commands/list.ts";
import { removeTempDirs, type Terminal, tempDir } from "./cli-process.ts";
import { type KeyHolder, keyHolder, pairedTerminal, sendSealedFile } from "./key-holder.ts";
import { StallProxy } from "./stall-proxy.ts";

const MiB = 1024 * 1024;

let server: TestServer;
let proxy: StallProxy;
let holder: KeyHolder;
/** Ann's terminal through the proxy, and one straight to the server; both paired by QR code, so both seal. */
let throughProxy: Terminal;
let direct: Terminal;
let work: string;
beforeAll(async () => {
  server = await startTestServer({ FREE_MAX_FILE_BYTES: String(3 * MiB) });
  proxy = await StallProxy.start(server.url);
  holder = await keyHolder(server.url, "ann@example.com");
  throughProxy = await pairedTerminal(proxy.url, holder);
  direct = await pairedTerminal(server.url, holder);
  work = tempDir("files");
});
afterAll(async () => {
  await proxy.close();
  await server.close();
  await removeTempDirs();
});

/** A CLI process starting on a loaded machine can take well over 10 s to send its first bytes. */
async function until(condition: () => boolean, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Bytes the server holds of an upload that is under way (tus file store: one file per upload id). */
function storedBytes(): number {
  const dir = path.join(server.dataDir, "files");
  return Math.max(0, ...readdir(dir).map((f) => statSync(path.join(dir, f)).size));
}
const readdir = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((f) => !f.endsWith(".json")) : []);

describe("daysync send --file and get", () => {
  it("an upload killed halfway resumes at the server's offset, and get downloads identical bytes", async () => {
    const terminal = throughProxy;
    const file = path.join(work, "backup.bin");
    const bytes = randomBytes(2 * MiB);
    writeFileSync(file, bytes);
    const sealedSize = sealedLength(bytes.length);

    // The network hangs after 1 MiB; the command is killed as by a power cut.
    proxy.stallAfter = MiB;
    const first = terminal.spawn(["send", "--file", file]);
    await until(() => storedBytes() === MiB);
    await first.kill("SIGKILL");

    // What the terminal kept to resume with: the upload's URL and its metadata, with the file's key sealed and no name in clear
    // (the fingerprint, local to this terminal, names its path).
    const kept = JSON.parse(readFileSync(path.join(terminal.configDir, "uploads.json"), "utf8")) as Record<
      string,
      { uploadUrl: string; metadata: Record<string, string> }
    >;
    const [stored] = Object.values(kept);
    expect(stored?.metadata).toMatchObject({ epoch: "1", type: "file", file_key: expect.stringMatching(/^v1\.1\./) });
    expect(JSON.stringify(stored?.metadata)).not.toContain("backup");
    const uploadUrl = stored?.uploadUrl ?? "";
    await until(() => storedBytes() === MiB);
    // 1 MiB is no record boundary: the server cuts the cut-off record away, and the upload goes on from the last whole one.
    const head = await holder.device.raw("HEAD", new URL(uploadUrl).pathname, { headers: { "tus-resumable": "1.0.0" } });
    const offset = Math.floor(MiB / SEALED_RECORD_SIZE) * SEALED_RECORD_SIZE;
    expect(offset).toBeGreaterThan(0);
    expect(head.headers.get("upload-offset")).toBe(String(offset));

    // The same command again seals and sends only the rest, under the key the kept metadata opens to.
    proxy.stallAfter = null;
    proxy.patchBytes = 0;
    const again = await terminal.run(["send", "--file", file, "--json"]);
    expect(again.code, again.stderr).toBe(0);
    expect(proxy.patchBytes).toBe(sealedSize - offset);
    const sent = JSON.parse(again.stdout) as { message_id: string; filename: string; size: number };
    expect(sent).toMatchObject({ filename: "backup.bin", size: bytes.length });
    expect(existsSync(path.join(terminal.configDir, "uploads.json"))).toBe(false);
    const { message } = (await holder.device.get<{ message: Message }>(API.message(sent.message_id))).body;
    expect(message).toMatchObject({ epoch: 1, type: "file", file_size: sealedSize });
    expect(message.filename).toMatch(/^v1\.1\./);

    // Downloaded under its own name into the working directory, byte for byte.
    const downloads = tempDir("get");
    const get = await terminal.run(["get", sent.message_id], { cwd: downloads });
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout).toContain("Saved backup.bin (2 MiB).");
    expect(readdirSync(downloads)).toEqual(["backup.bin"]);
    expect(readFileSync(path.join(downloads, "backup.bin")).equals(bytes)).toBe(true);

    // Never over an existing file without --force.
    writeFileSync(path.join(downloads, "backup.bin"), "mine");
    const refused = await terminal.run(["get", "last"], { cwd: downloads });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("backup.bin already exists. Add --force to overwrite it, or choose another name with --output PATH.");
    expect(readFileSync(path.join(downloads, "backup.bin"), "utf8")).toBe("mine");
    const forced = await terminal.run(["get", "last", "--force", "--output", path.join(downloads, "backup.bin")]);
    expect(forced.code).toBe(0);
    expect(readFileSync(path.join(downloads, "backup.bin")).equals(bytes)).toBe(true);
  });

  it("Ctrl+C stops an upload with exit code 130; run again, it survives a dropped connection on its own", async () => {
    const terminal = throughProxy;
    const file = path.join(work, "video.bin");
    const bytes = randomBytes(2 * MiB);
    writeFileSync(file, bytes);

    proxy.patchBytes = 0;
    proxy.stallAfter = MiB / 2;
    const first = terminal.spawn(["send", "--file", file]);
    await until(() => proxy.patchBytes === MiB / 2);
    expect(await first.kill("SIGINT")).toBe(130);
    expect(first.stderr).toContain("Interrupted. Run the same command again to resume video.bin where it stopped.");

    proxy.stallAfter = null;
    proxy.patchBytes = 0;
    proxy.dropAt = MiB / 2;
    const again = await terminal.run(["send", "--file", file, "--json"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain("video.bin: the connection was interrupted; resuming…");
    const { message_id } = JSON.parse(again.stdout) as { message_id: string };
    const copy = path.join(tempDir("get"), "copy.bin");
    expect((await terminal.run(["get", message_id, "--output", copy])).code).toBe(0);
    expect(readFileSync(copy).equals(bytes)).toBe(true);
  });

  it("a file too large for the plan is refused before any byte is sent, with exit code 6", async () => {
    const terminal = direct;
    const file = path.join(work, "too-big.bin");
    writeFileSync(file, Buffer.alloc(3 * MiB + 1));
    const out = await terminal.run(["send", "--file", file]);
    expect(out.code).toBe(6);
    expect(out.stderr).toContain("too-big.bin is too large (3 MiB): your plan allows files up to 3 MiB.");
    const missing = await terminal.run(["send", "--file", path.join(work, "nope.txt")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("No such file:");
  });

  it("get saves a file whose UTF-8 name is too long for the file system under a shortened one, cut between characters", async () => {
    // 245 characters, as the server allows, but 541 bytes of UTF-8: Linux takes 255 bytes in a name.
    const name = `a${"é日😀".repeat(60)}.txt`;
    expect(Buffer.byteLength(name)).toBeGreaterThan(255);
    const bytes = randomBytes(1000);
    // Sent sealed from the browser: the terminal opens the name, then the bytes.
    const messageId = await sendSealedFile(holder, name, bytes, server.clock.now());
    const terminal = direct;

    const downloads = tempDir("long-name");
    const get = await terminal.run(["get", messageId], { cwd: downloads });
    expect(get.code, get.stderr).toBe(0);
    const [saved = ""] = readdirSync(downloads);
    expect(readdirSync(downloads)).toEqual([saved]);
    expect(readFileSync(path.join(downloads, saved)).equals(bytes)).toBe(true);
    expect(get.stdout).toContain(`Saved ${saved} (`);
    // The extension stays; the rest is the name's beginning, whole characters only (a cut inside one would read as U+FFFD).
    expect(saved.endsWith(".txt")).toBe(true);
    expect(name.startsWith(saved.slice(0, -".txt".length))).toBe(true);
    // Short enough with room for the part file written first (NAME.daysync-part), and no shorter than it must be.
    const size = Buffer.byteLength(saved);
    expect(size).toBeLessThanOrEqual(255 - ".daysync-part".length);
    expect(size).toBeGreaterThan(255 - ".daysync-part".length - 4);
  });

  it("ls lists a sent file with its opened name and its size in plain bytes, in --json too", async () => {
    const terminal = direct;
    const file = path.join(work, "note.txt");
    writeFileSync(file, "a small file");
    const sent = await terminal.run(["send", "--file", file, "--json"]);
    expect(sent.code, sent.stderr).toBe(0);
    const { message_id } = JSON.parse(sent.stdout) as { message_id: string };
    const json = await terminal.run(["ls", "--json"]);
    expect(json.code, json.stderr).toBe(0);
    // No sealed value printed: not the name, nor the file's key.
    expect(json.stdout).not.toMatch(/"v1\.\d+\./);
    const listed = JSON.parse(json.stdout) as ListedMessage[];
    expect(listed.find((m) => m.id === message_id)).toMatchObject({ type: "file", filename: "note.txt", size: 12, file_size: 12 });
    const table = await terminal.run(["ls"]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(new RegExp(`file +12 B .*${message_id} +note\\.txt`));
  });
});
