/** The default storage: files under DATA_DIR on local disk (or one shared volume when scaled out). */
import { randomUUID } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, open, rm, stat, statfs, truncate, writeFile } from "node:fs/promises";
import path from "node:path";
import { FileConfigstore, FileStore } from "@tus/file-store";
import type { Upload } from "@tus/utils";
import type { FileStorage, UnfinishedUpload } from "./file-storage.ts";

/** Large reads keep downloads near disk speed (the stream default is 64 KiB). */
const READ_CHUNK = 1024 * 1024;
const SAFE_ID = /^[A-Za-z0-9_-]{1,128}$/;
/** Upload records read at once when listing them. */
const LIST_BATCH = 32;

/**
 * tus's FileStore makes its folder from its constructor, in a callback that throws (an uncaught exception) when that
 * fails, for example when the folder is removed while the call waits for libuv's pool (a test server stopped while
 * argon2 hashes filled it). Ours makes the folder first and awaits it, so that call is not made at all.
 */
// @ts-expect-error: it replaces FileStore's private checkOrCreateDirectory, which the constructor calls.
class AwaitedFolderFileStore extends FileStore {
  override checkOrCreateDirectory() {}
}

export async function createDiskStorage(directory: string, expiryMs: number): Promise<FileStorage> {
  await mkdir(directory, { recursive: true });
  const configstore = new FileConfigstore(directory);
  const datastore = new AwaitedFolderFileStore({ directory, configstore, expirationPeriodInMilliseconds: expiryMs });
  const fileOf = (id: string) => {
    if (!SAFE_ID.test(id)) throw new Error(`Unsafe file id: ${id}`);
    return path.join(directory, id);
  };

  /** Uploads seen with all their bytes: they stay complete, so listing skips them instead of reading them again. */
  const complete = new Set<string>();

  /** Every upload that has not received all its bytes, with its offset read from the file itself. */
  async function incompleteUploads(): Promise<Upload[]> {
    const ids = ((await configstore.list?.()) ?? []).filter((id) => !complete.has(id));
    const found: Upload[] = [];
    for (let i = 0; i < ids.length; i += LIST_BATCH) {
      const batch = await Promise.all(ids.slice(i, i + LIST_BATCH).map((id) => datastore.getUpload(id).catch(() => undefined)));
      for (const upload of batch) {
        if (upload?.size !== undefined && upload.offset >= upload.size) complete.add(upload.id);
        else if (upload) found.push(upload);
      }
    }
    return found;
  }
  const isExpired = (upload: Upload) =>
    expiryMs > 0 && upload.creation_date !== undefined && Date.now() > Date.parse(upload.creation_date) + expiryMs;

  return {
    datastore,
    async volume() {
      const fs = await statfs(directory);
      return { size: fs.blocks * fs.bsize, free: fs.bavail * fs.bsize };
    },
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
    async truncate(id, length) {
      await truncate(fileOf(id), length);
    },
    async remove(id) {
      complete.delete(id);
      await rm(fileOf(id), { force: true });
      await rm(`${fileOf(id)}.json`, { force: true });
    },
    async unfinishedUploads(): Promise<UnfinishedUpload[]> {
      return (await incompleteUploads())
        .filter((upload) => !isExpired(upload))
        .map((upload) => ({ id: upload.id, size: upload.size ?? upload.offset, metadata: upload.metadata ?? {} }));
    },
    // Not FileStore.deleteExpired: it compares the declared size with the offset saved at creation (always 0),
    // so it deletes finished files too once they are older than the expiry.
    async removeExpired() {
      const expired = (await incompleteUploads()).filter(isExpired);
      for (const upload of expired) await datastore.remove(upload.id).catch(() => undefined);
      return expired.length;
    },
    // A name of its own per check (processes share the folder), neither an upload's id nor a record (.json).
    async checkWritable() {
      const probe = path.join(directory, `.ready-${randomUUID()}`);
      try {
        await writeFile(probe, "ok");
      } finally {
        await rm(probe, { force: true });
      }
    },
  };
}
