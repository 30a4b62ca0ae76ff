/**
 * Upload and download throughput of a large file over loopback, as ratios to this machine's raw
 * sequential disk write and read measured in the same run.
 * Run: npm run bench:upload  (SIZE_MIB=1024 by default). Writes bench/upload-throughput-results.json.
 */
import { createReadStream, createWriteStream, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { API, formatStoredDate, formatStoredTime } from "@daysync/shared";
import { Upload } from "tus-js-client";
import { startServer } from "../e2e/support/server.ts";

const MiB = 1024 * 1024;
const SIZE = Number(process.env.SIZE_MIB ?? 1024) * MiB;
const CHUNK = 8 * MiB;
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

async function main() {
  const source = path.join(work, "source.bin");
  const writeS = await rawWrite(source);
  const readS = await rawRead(source);

  const server = await startServer({ FREE_MAX_FILE_BYTES: String(SIZE * 2) });
  try {
    const register = await fetch(`${server.url}${API.register}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Bench", email: "bench@example.com", password: "bench-password", confirm_password: "bench-password" }),
    });
    const cookie = (register.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const now = new Date();

    const uploadStart = process.hrtime.bigint();
    const location = await new Promise<string>((resolve, reject) => {
      const upload = new Upload(createReadStream(source, { highWaterMark: CHUNK }), {
        endpoint: `${server.url}${API.uploads}`,
        uploadSize: SIZE,
        chunkSize: 256 * MiB,
        headers: { cookie },
        metadata: {
          filename: "bench.bin",
          filetype: "application/octet-stream",
          message_id: crypto.randomUUID(),
          date: formatStoredDate(now),
          time: formatStoredTime(now),
        },
        onError: reject,
        onSuccess: () => resolve(upload.url ?? ""),
      });
      upload.start();
    });
    const uploadS = seconds(uploadStart);

    const id = location.split("/").pop() ?? "";
    const downloadStart = process.hrtime.bigint();
    const res = await fetch(`${server.url}${API.file(id)}`, { headers: { cookie } });
    if (!res.ok || !res.body) throw new Error(`download failed: ${res.status}`);
    await pipeline(res.body, createWriteStream("/dev/null"));
    const downloadS = seconds(downloadStart);

    const results = {
      date: new Date().toISOString(),
      file_mib: SIZE / MiB,
      raw_disk_write_mib_s: mibPerS(SIZE, writeS),
      raw_disk_read_mib_s: mibPerS(SIZE, readS),
      upload_mib_s: mibPerS(SIZE, uploadS),
      download_mib_s: mibPerS(SIZE, downloadS),
      upload_ratio_to_disk_write: +(writeS / uploadS).toFixed(2),
      download_ratio_to_disk_read: +(readS / downloadS).toFixed(2),
      target: "upload_ratio_to_disk_write >= 0.5",
      note: "Same machine, same run; reads may come from the page cache for both the raw read and the download.",
    };
    writeFileSync(path.join(import.meta.dirname, "upload-throughput-results.json"), `${JSON.stringify(results, null, 2)}\n`);
    console.log(results);
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
