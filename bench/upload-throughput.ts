/**
 * Upload and download throughput of a large file over loopback, in clear and sealed on the device (decision 020,
 * section 9), as ratios to this machine's raw sequential disk write and read and to each other, all in the same run.
 * Run: npm run bench:upload  (SIZE_MIB=1024 and ROUNDS=3 by default). Writes bench/upload-throughput-results.json.
 */
import { execFileSync } from "node:child_process";
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable, Transform, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { API, formatStoredDate, formatStoredTime } from "@daysync/shared";
import { type CryptoKey, openRecordStream, SEALED_RECORD_SIZE, sealedLength, sealFileUpload } from "@daysync/shared/crypto";
import { Upload } from "tus-js-client";
import { saveTo } from "../apps/cli/src/save-to.ts";
import { nodeRecords } from "../apps/cli/src/sealing/node-records.ts";
import { type FileReader, sealingFileReader } from "../apps/cli/src/upload.ts";
import { startServer } from "../e2e/support/server.ts";
import { keyedAccount } from "./support/keyed-account.ts";

const MiB = 1024 * 1024;
const SIZE = Number(process.env.SIZE_MIB ?? 1024) * MiB;
const CHUNK = 8 * MiB;
const ROUNDS = Number(process.env.ROUNDS ?? 3);
/** PATCH sizes as the web app sends them: 8 MiB in clear, 128 whole records sealed (docs/protocol/encryption.md, "File records"). */
const CLEAR_CHUNK = 8 * MiB;
const SEALED_CHUNK = 128 * SEALED_RECORD_SIZE;
const work = mkdtempSync(path.join(tmpdir(), "daysync-bench-"));

const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;
const mibPerS = (bytes: number, s: number) => +(bytes / MiB / s).toFixed(1);

/** Sequential write of SIZE bytes with one fsync at the end, as an upload's bytes reach the disk. */
async function rawWrite(file: string): Promise<number> {
  const block = Buffer.alloc(CHUNK, 7);
  const start = process.hrtime.bigint();
  const handle = await open(file, "w");
  for (let written = 0; written < SIZE; written += CHUNK) await handle.write(block, 0, Math.min(CHUNK, SIZE - written));
  await handle.sync();
  await handle.close();
  return seconds(start);
}

async function rawRead(file: string): Promise<number> {
  const start = process.hrtime.bigint();
  await pipeline(createReadStream(file, { highWaterMark: CHUNK }), new Writable({ write: (_c, _e, cb) => cb() }));
  return seconds(start);
}

interface Uploaded {
  id: string;
  seconds: number;
}

/** Sends SIZE bytes with tus-js-client as the apps do, from `input` or through `fileReader`, in PATCHes of `chunkSize`. */
function upload(
  baseUrl: string,
  cookie: string,
  metadata: Record<string, string>,
  chunkSize: number,
  input: { file: ReturnType<typeof createReadStream> } | { fileReader: FileReader },
): Promise<Uploaded> {
  const start = process.hrtime.bigint();
  return new Promise<Uploaded>((resolve, reject) => {
    const tus = new Upload("file" in input ? input.file : Buffer.alloc(0), {
      endpoint: `${baseUrl}${API.uploads}`,
      ...("file" in input ? { uploadSize: SIZE } : { fileReader: input.fileReader }),
      chunkSize,
      headers: { cookie },
      metadata,
      onError: reject,
      onSuccess: () => resolve({ id: (tus.url ?? "").split("/").pop() ?? "", seconds: seconds(start) }),
    });
    tus.start();
  });
}

/**
 * Downloads a file, through `transform` when given (the sealed records opened as they stream): to a file as
 * `daysync get` does (a write stream, no fsync), or to nowhere, which shows what receiving and opening cost alone.
 */
async function download(
  baseUrl: string,
  cookie: string,
  id: string,
  to: "file" | "nowhere",
  transform?: TransformStream<Uint8Array, Uint8Array>,
): Promise<number> {
  const start = process.hrtime.bigint();
  const res = await fetch(`${baseUrl}${API.file(id)}`, { headers: { cookie } });
  if (!res.ok || !res.body) throw new Error(`download failed: ${res.status}`);
  const body = transform ? res.body.pipeThrough(transform) : res.body;
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _e, cb) {
      bytes += chunk.length;
      cb(null, chunk);
    },
  });
  const sink = to === "file" ? saveTo(path.join(work, "downloaded.bin")) : new Writable({ write: (_c, _e, cb) => cb() });
  await pipeline(Readable.fromWeb(body as import("node:stream/web").ReadableStream<Uint8Array>), counter, sink);
  if (bytes !== SIZE) throw new Error(`downloaded ${bytes} bytes of ${SIZE}`);
  return seconds(start);
}

async function main() {
  const source = path.join(work, "source.bin");
  const writeS = await rawWrite(source);
  const readS = await rawRead(source);

  const server = await startServer({ FREE_MAX_FILE_BYTES: String(SIZE * 2), FREE_STORAGE_BYTES: String(SIZE * 4) });
  try {
    const now = new Date();
    const [date, time] = [formatStoredDate(now), formatStoredTime(now)];

    // In clear, as before encryption (an account that never made a key), and sealed on the device (records of 64 KiB
    // under a fresh file key, opened again as the download streams), taking turns so both meet the same noise.
    const clearAccount = await register(server.url, "bench-clear@example.com");
    const { cookie, sealer } = await keyedAccount(server.url, "bench-sealed@example.com");
    const runs = {
      clearUp: [] as number[],
      clearDown: [] as number[],
      clearDownNowhere: [] as number[],
      sealedUp: [] as number[],
      sealedDown: [] as number[],
      sealedDownNowhere: [] as number[],
    };
    const opening = (fileKey: CryptoKey, messageId: string) =>
      openRecordStream(fileKey, messageId, sealedLength(SIZE), undefined, nodeRecords);
    const clearHalf = async () => {
      const meta = { filename: "bench.bin", filetype: "application/octet-stream", message_id: crypto.randomUUID(), date, time };
      settle();
      const clear = await upload(server.url, clearAccount, meta, CLEAR_CHUNK, {
        file: createReadStream(source, { highWaterMark: CHUNK }),
      });
      runs.clearUp.push(clear.seconds);
      settle();
      runs.clearDown.push(await download(server.url, clearAccount, clear.id, "file"));
      settle();
      runs.clearDownNowhere.push(await download(server.url, clearAccount, clear.id, "nowhere"));
      return () => remove(server.url, clearAccount, meta.message_id);
    };
    const sealedHalf = async () => {
      const messageId = crypto.randomUUID();
      const { metadata, fileKey } = await sealFileUpload(sealer, { id: messageId, date, time, name: "bench.bin", type: "file" });
      // The upload's source as the CLI gives it: records sealed from the file on disk as tus asks for each range.
      const handle = await open(source, "r");
      settle();
      const sealed = await upload(server.url, cookie, metadata, SEALED_CHUNK, {
        fileReader: sealingFileReader(handle, { fileKey, messageId }, SIZE),
      }).finally(() => handle.close());
      runs.sealedUp.push(sealed.seconds);
      settle();
      runs.sealedDown.push(await download(server.url, cookie, sealed.id, "file", opening(fileKey, messageId)));
      settle();
      runs.sealedDownNowhere.push(await download(server.url, cookie, sealed.id, "nowhere", opening(fileKey, messageId)));
      return () => remove(server.url, cookie, messageId);
    };
    for (let round = 0; round < ROUNDS; round++) {
      // Clear first in one round, sealed first in the next, so neither always follows the other's writes.
      const halves = round % 2 === 0 ? [clearHalf, sealedHalf] : [sealedHalf, clearHalf];
      const removals = [];
      for (const half of halves) removals.push(await half());
      // Each round's two files go, so storage holds at most two at a time.
      await Promise.all(removals.map((remove) => remove()));
    }
    const clearUpS = median(runs.clearUp);
    const clearDownloadS = median(runs.clearDown);
    const sealedUpS = median(runs.sealedUp);
    const sealedDownloadS = median(runs.sealedDown);
    const clearNowhereS = median(runs.clearDownNowhere);
    const sealedNowhereS = median(runs.sealedDownNowhere);

    const results = {
      date: new Date().toISOString(),
      file_mib: SIZE / MiB,
      raw_disk_write_mib_s: mibPerS(SIZE, writeS),
      raw_disk_read_mib_s: mibPerS(SIZE, readS),
      rounds: ROUNDS,
      upload_mib_s: mibPerS(SIZE, clearUpS),
      download_mib_s: mibPerS(SIZE, clearDownloadS),
      sealed_upload_mib_s: mibPerS(SIZE, sealedUpS),
      sealed_download_mib_s: mibPerS(SIZE, sealedDownloadS),
      download_to_nowhere_mib_s: mibPerS(SIZE, clearNowhereS),
      sealed_download_to_nowhere_mib_s: mibPerS(SIZE, sealedNowhereS),
      upload_ratio_to_disk_write: +(writeS / clearUpS).toFixed(2),
      download_ratio_to_disk_read: +(readS / clearDownloadS).toFixed(2),
      sealed_upload_ratio_to_clear: +(clearUpS / sealedUpS).toFixed(2),
      sealed_download_ratio_to_clear: +(clearDownloadS / sealedDownloadS).toFixed(2),
      sealed_download_to_nowhere_ratio_to_clear: +(clearNowhereS / sealedNowhereS).toFixed(2),
      patch_bytes: { clear: CLEAR_CHUNK, sealed: SEALED_CHUNK },
      targets: ["upload_ratio_to_disk_write >= 0.5", "sealed_upload_ratio_to_clear >= 0.5", "sealed_download_ratio_to_clear >= 0.5"],
      each_round_mib_s: Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, v.map((secs) => mibPerS(SIZE, secs))])),
      note: "Medians of the rounds. Same machine, same run; reads may come from the page cache for both the raw read and the downloads. Downloads write a file as daysync get does; to_nowhere ones drop the bytes. Throughput of the plaintext bytes.",
    };
    writeFileSync(path.join(import.meta.dirname, "upload-throughput-results.json"), `${JSON.stringify(results, null, 2)}\n`);
    console.log(results);
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Writes out what the last measurement left in the page cache (`sync`), so the next does not pay for its writeback:
 * the upload after a download to a file ran at half speed while the kernel wrote that file out.
 */
function settle(): void {
  execFileSync("sync");
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/** Deletes a file message (and so its file), as Delete does. */
async function remove(baseUrl: string, cookie: string, messageId: string): Promise<void> {
  const res = await fetch(`${baseUrl}${API.message(messageId)}`, { method: "DELETE", headers: { cookie } });
  if (!res.ok) throw new Error(`delete answered ${res.status}`);
}

/** A new account's session cookie. */
async function register(baseUrl: string, email: string): Promise<string> {
  const res = await fetch(`${baseUrl}${API.register}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "Bench", email, password: "bench-password", confirm_password: "bench-password" }),
  });
  if (res.status !== 201) throw new Error(`register answered ${res.status}`);
  return (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
}

await main();
