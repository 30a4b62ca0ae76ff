/**
 * Files the terminal sends and gets are sealed on it (docs/protocol/encryption.md, "File records"): the server holds no trace of a file's
 * name or bytes; `get`, `ls` and `watch` open them; a tampered file saves nothing; a terminal not approved yet sends
 * no file; a key change while a file goes is synced and the file sent afresh under the new epoch.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { API, DEVICES_API, type DevicesResponse, type Message, SEALED_TEXT } from "@daysync/shared";
import { RECORD_SIZE, SEALED_RECORD_SIZE, sealedLength } from "@daysync/shared/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tablesNaming } from "../../server/src/testing/every-row.ts";
import { startTestServer, type TestServer } from "../../server/src/testing/test-server.ts";
import type { ListedMessage } from "../src/commands/list.ts";
import type { WatchedMessage } from "../src/commands/watch.ts";
import { EXIT } from "../src/errors.ts";
import { removeTempDirs, type Terminal, tempDir } from "./cli-process.ts";
import { HookProxy } from "./hook-proxy.ts";
import { type KeyHolder, keyHolder, pairedTerminal, terminalEpochs } from "./key-holder.ts";
import { signedInTerminal } from "./sign-in.ts";

let server: TestServer;
let proxy: HookProxy;
let holder: KeyHolder;
let terminal: Terminal;
let work: string;
beforeAll(async () => {
  server = await startTestServer();
  proxy = await HookProxy.start(server.url);
  holder = await keyHolder(server.url, "fay@example.com");
  terminal = await pairedTerminal(proxy.url, holder);
  work = tempDir("sealed-files");
});
afterAll(async () => {
  await proxy.close();
  await server.close();
  await removeTempDirs();
});

const filesDir = () => path.join(server.dataDir, "files");
/** The stored uploads (tus keeps each as its bytes and a .json of its metadata). */
const storedUploads = () => (existsSync(filesDir()) ? readdirSync(filesDir()).filter((f) => !f.endsWith(".json")) : []);
const messageOf = async (id: string) => (await holder.device.get<{ message: Message }>(API.message(id))).body.message;
const uploadIdOf = (message: Message) => message.file_url.split("/").pop() ?? "";

async function until(condition: () => boolean, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Random bytes with `marker` written across the first record boundary and at the start. */
function bytesWith(marker: string, length: number): Buffer {
  const bytes = randomBytes(length);
  bytes.write(marker, 0);
  bytes.write(marker, RECORD_SIZE - Math.floor(marker.length / 2));
  return bytes;
}

async function sendFile(name: string, bytes: Buffer, args: string[] = []) {
  const file = path.join(work, name);
  writeFileSync(file, bytes);
  const out = await terminal.run(["send", "--file", file, "--json", ...args]);
  expect(out.code, out.stderr).toBe(0);
  return JSON.parse(out.stdout) as { message_id: string; filename: string; size: number };
}

describe("daysync send --file seals, get opens", () => {
  it("the server holds neither the file's name nor its bytes; get saves identical bytes under the opened name", async () => {
    const name = "plans-qzvxwkjp for the summer.pdf";
    const bytes = bytesWith("marker-hgtymrlq inside the file", 200_000);
    const sent = await sendFile(name, bytes);
    expect(sent).toMatchObject({ filename: name, size: bytes.length });

    const message = await messageOf(sent.message_id);
    expect(message).toMatchObject({ type: "file", epoch: 1, content: "", file_size: sealedLength(bytes.length) });
    expect(message.filename).toMatch(/^v1\.1\./);
    expect(message.file_key).toMatch(/^v1\.1\./);
    // No row anywhere, and no byte under the files folder (bytes and tus metadata alike), names either marker.
    expect(await tablesNaming(server, ["qzvxwkjp", "hgtymrlq"])).toEqual([]);
    for (const file of readdirSync(filesDir())) {
      const stored = readFileSync(path.join(filesDir(), file));
      expect(stored.includes("qzvxwkjp"), file).toBe(false);
      expect(stored.includes("hgtymrlq"), file).toBe(false);
    }
    expect(readFileSync(path.join(filesDir(), uploadIdOf(message))).length).toBe(sealedLength(bytes.length));

    const downloads = tempDir("get");
    const get = await terminal.run(["get", sent.message_id], { cwd: downloads });
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout).toContain(`Saved ${name} (195 KiB).`);
    expect(readdirSync(downloads)).toEqual([name]);
    expect(readFileSync(path.join(downloads, name)).equals(bytes)).toBe(true);
  });

  it("an empty file goes as one empty record and comes back empty", async () => {
    const sent = await sendFile("empty.txt", Buffer.alloc(0));
    expect((await messageOf(sent.message_id)).file_size).toBe(sealedLength(0));
    const copy = path.join(tempDir("empty"), "copy.txt");
    const get = await terminal.run(["get", sent.message_id, "--output", copy]);
    expect(get.code, get.stderr).toBe(0);
    expect(readFileSync(copy).length).toBe(0);
  });

  it("a file a byte of which was changed on the server saves nothing: no file, no part, and exit code 8", async () => {
    const bytes = randomBytes(4 * RECORD_SIZE + 1000);
    const sent = await sendFile("ledger.csv", bytes);
    // A byte of the last record flipped: the records before it open, and are written to the part first.
    const stored = path.join(filesDir(), uploadIdOf(await messageOf(sent.message_id)));
    const sealed = readFileSync(stored);
    const at = 4 * SEALED_RECORD_SIZE + 500;
    sealed[at] = (sealed[at] ?? 0) ^ 0x01;
    writeFileSync(stored, sealed);

    const downloads = tempDir("tampered");
    const get = await terminal.run(["get", sent.message_id], { cwd: downloads });
    expect(get.code).toBe(EXIT.undecryptable);
    expect(get.stderr).toContain(SEALED_TEXT.undecryptable);
    expect(get.stdout).not.toContain("Saved");
    expect(readdirSync(downloads)).toEqual([]);
    const named = path.join(downloads, "named.csv");
    const output = await terminal.run(["get", sent.message_id, "--output", named]);
    expect(output.code).toBe(EXIT.undecryptable);
    expect(readdirSync(downloads)).toEqual([]);
  });

  it("ls and watch show a sealed file's opened name and its size in plain bytes; watch --exec gets the opened bytes", async () => {
    const watching = tempDir("watching");
    const cli = terminal.spawn(["watch", "--json", "--exec", 'cat > "$DAYSYNC_MESSAGE_FILENAME"'], { cwd: watching });
    await cli.waitFor(/Watching for new messages/, { stream: "stderr", timeoutMs: 30_000 });
    const bytes = randomBytes(70_000);
    const sent = await sendFile("photo-of-receipt.png", bytes);
    await cli.waitFor(/^\{.*\}\n/, { timeoutMs: 15_000 });
    // The --exec command runs once the line is printed: wait for all of its output.
    const execOut = path.join(watching, "photo-of-receipt.png");
    await until(() => existsSync(execOut) && statSync(execOut).size === bytes.length);
    await cli.kill("SIGINT");
    const [watched] = cli.jsonLines<WatchedMessage>();
    expect(watched).toMatchObject({ id: sent.message_id, type: "image", filename: "photo-of-receipt.png", file_size: bytes.length });
    expect(cli.stdout).not.toMatch(/"v1\.\d+\./);
    expect(readFileSync(execOut).equals(bytes)).toBe(true);

    const json = await terminal.run(["ls", "--json"]);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).not.toMatch(/"v1\.\d+\./);
    const listed = (JSON.parse(json.stdout) as ListedMessage[]).find((m) => m.id === sent.message_id);
    expect(listed).toMatchObject({ filename: "photo-of-receipt.png", size: bytes.length, file_size: bytes.length });
    const table = await terminal.run(["ls"]);
    expect(table.stdout).toMatch(new RegExp(`image +68 KiB .*${sent.message_id} +photo-of-receipt\\.png`));
  });

  it("a terminal not approved yet sends no file, and says how to approve it", async () => {
    const locked = await signedInTerminal(server.url, "fay@example.com");
    const before = storedUploads();
    const file = path.join(work, "locked-vwxkqpzj.txt");
    writeFileSync(file, "not for the server");
    const out = await locked.run(["send", "--file", file]);
    expect(out.code).toBe(EXIT.locked);
    expect(out.stderr).toContain(SEALED_TEXT.approveToSend);
    expect(storedUploads()).toEqual(before);
    expect(existsSync(path.join(locked.configDir, "uploads.json"))).toBe(false);
    expect(await tablesNaming(server, ["vwxkqpzj"])).toEqual([]);

    // Nor does it open one: get says it is locked, and saves nothing.
    const downloads = tempDir("locked-get");
    const get = await locked.run(["get", "last"], { cwd: downloads });
    expect(get.code).toBe(EXIT.locked);
    expect(get.stderr).toContain(SEALED_TEXT.locked);
    expect(readdirSync(downloads)).toEqual([]);
  });
});

async function deviceIdOf(of: Terminal): Promise<string> {
  const out = await of.run(["devices", "--json"]);
  const devices = JSON.parse(out.stdout) as DevicesResponse["devices"];
  return devices.find((d) => d.current)?.id ?? "";
}

type Request = Parameters<NonNullable<HookProxy["hook"]>["matches"]>[0];

/** Runs `step` (another device acting) just before the next request `matches` picks reaches the server, once. */
function beforeNext(matches: (req: Request) => boolean, step: (req: Request) => Promise<void>) {
  proxy.hook = {
    matches,
    run: async (req) => {
      proxy.hook = null;
      await step(req);
    },
  };
}

/** The message id an upload's creation names in its Upload-Metadata. */
function messageIdOf(req: Request): string {
  const field = String(req.headers["upload-metadata"] ?? "")
    .split(",")
    .find((pair) => pair.startsWith("message_id "));
  return Buffer.from(field?.split(" ")[1] ?? "", "base64").toString();
}
const isPatch = (req: Request) => req.method === "PATCH";
const isCreate = (req: Request) => req.method === "POST" && req.url === API.uploads;

describe("a key change while a file goes", () => {
  it("refused at its last byte (key_epoch_changed): the terminal syncs and sends the file afresh under the new epoch, same id", async () => {
    const leaving = await pairedTerminal(server.url, holder);
    const leavingId = await deviceIdOf(leaving);
    // Another device signs a key holder out and rotates while the bytes go: the last byte meets epoch 2.
    const created: string[] = [];
    beforeNext(isCreate, async (req) => {
      created.push(messageIdOf(req));
      beforeNext(isPatch, async () => {
        expect((await holder.device.request("DELETE", DEVICES_API.one(leavingId))).status).toBe(204);
        await holder.sync();
        expect(holder.sealer.epoch).toBe(2);
        beforeNext(isCreate, async (again) => {
          created.push(messageIdOf(again));
        });
      });
    });
    const before = storedUploads();
    const bytes = randomBytes(100_000);
    const sent = await sendFile("after-rotation.bin", bytes);
    expect(proxy.hook).toBeNull();
    // Two uploads, one message id.
    expect(created).toEqual([sent.message_id, sent.message_id]);

    const message = await messageOf(sent.message_id);
    expect(message).toMatchObject({ epoch: 2, file_size: sealedLength(bytes.length) });
    // The upload refused at its last byte is gone from the server; only the one sent afresh remains.
    expect(storedUploads().filter((f) => !before.includes(f))).toEqual([uploadIdOf(message)]);
    expect(existsSync(path.join(terminal.configDir, "uploads.json"))).toBe(false);
    const copy = path.join(tempDir("rotated"), "copy.bin");
    const get = await terminal.run(["get", sent.message_id, "--output", copy]);
    expect(get.code, get.stderr).toBe(0);
    expect(readFileSync(copy).equals(bytes)).toBe(true);
  });

  it("key_rotation_due at its last byte, then again at the fresh start: the terminal rotates once, then says why and fails", async () => {
    const leaving = await pairedTerminal(server.url, holder);
    const leavingId = await deviceIdOf(leaving);
    beforeNext(isPatch, async () => {
      expect((await holder.device.request("DELETE", DEVICES_API.one(leavingId))).status).toBe(204);
      beforeNext(isCreate, async () => {
        expect((await holder.device.post(API.logout)).status).toBeLessThan(300);
      });
    });
    const before = storedUploads();
    const file = path.join(work, "twice-refused.bin");
    writeFileSync(file, randomBytes(1000));
    const out = await terminal.run(["send", "--file", file]);
    expect(out.code).toBe(EXIT.failure);
    expect(out.stderr).toContain(SEALED_TEXT.rotating);
    expect(proxy.hook).toBeNull();
    expect([...(await terminalEpochs(terminal)).keys()].sort()).toEqual([1, 2, 3]);
    expect(storedUploads()).toEqual(before);
    expect(existsSync(path.join(terminal.configDir, "uploads.json"))).toBe(false);
  });
});
