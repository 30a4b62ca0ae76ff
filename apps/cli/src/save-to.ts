import { createWriteStream, type WriteStream } from "node:fs";

/**
 * The file a download is saved to. It takes 4 MiB before it asks the download to wait, not Node's 16 KiB: at 16 KiB
 * every record of 64 KiB paused the download, and a sealed GiB saved spent seconds collecting garbage
 * (bench/upload-throughput.md).
 */
export function saveTo(file: string): WriteStream {
  return createWriteStream(file, { highWaterMark: 4 * 1024 * 1024 });
}
