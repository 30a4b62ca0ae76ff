import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createDiskStorage } from "./disk-storage.ts";

const root = mkdtempSync(path.join(tmpdir(), "daysync-disk-storage-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("disk storage's folder", () => {
  it("is made before the storage is used, and a folder that cannot be made is a rejection, not an uncaught exception", async () => {
    const uncaught: unknown[] = [];
    const listener = (error: unknown) => uncaught.push(error);
    process.on("uncaughtException", listener);
    try {
      const file = path.join(root, "a-file");
      writeFileSync(file, "");
      await expect(createDiskStorage(path.join(file, "files"), 0)).rejects.toThrow(/ENOTDIR|EEXIST/);
      // Long enough for a callback queued on libuv's pool behind it to have run.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(uncaught).toEqual([]);
    } finally {
      process.off("uncaughtException", listener);
    }
  });

  it("exists once the storage is made", async () => {
    const directory = path.join(root, "data", "files");
    const storage = await createDiskStorage(directory, 0);
    expect((await storage.volume()).size).toBeGreaterThan(0);
  });
});
