/** The default storage: files under DATA_DIR on local disk (or one shared volume when scaled out). */
import { createReadStream } from "node:fs";
import { mkdir, open, rm, stat } from "node:fs/promises";
import path from "node:path";
import { FileStore } from "@tus/file-store";
import type { FileStorage } from "./file-storage.ts";

/** Large reads keep downloads near disk speed (the stream default is 64 KiB). */
const READ_CHUNK = 1024 * 1024;
const SAFE_ID = /^[A-Za-z0-9_-]{1,128}$/;

export async function createDiskStorage(directory: string, expiryMs: number): Promise<FileStorage> {
  await mkdir(directory, { recursive: true });
  const datastore = new FileStore({ directory, expirationPeriodInMilliseconds: expiryMs });
  const fileOf = (id: string) => {
    if (!SAFE_ID.test(id)) throw new Error(`Unsafe file id: ${id}`);
    return path.join(directory, id);
  };
  return {
    datastore,
    async size(id) {
      try {
        return (await stat(fileOf(id))).size;
      } catch {
        return undefined;
      }
    },
    async head(id, bytes) {
      const handle = await open(fileOf(id), "r");
      try {
        const buffer = Buffer.alloc(bytes);
        const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
        return buffer.subarray(0, bytesRead);
      } finally {
        await handle.close();
      }
    },
    read(id, range) {
      return createReadStream(fileOf(id), { highWaterMark: READ_CHUNK, ...(range ? { start: range.start, end: range.end } : {}) });
    },
    async remove(id) {
      await rm(fileOf(id), { force: true });
      await rm(`${fileOf(id)}.json`, { force: true });
    },
    removeExpired() {
      return datastore.deleteExpired();
    },
  };
}
