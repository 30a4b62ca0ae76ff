/**
 * SQLite in WAL mode copies the log back into the database file ("checkpoints") on the connection that commits, by
 * default once the log holds 1,000 pages. At 500 sends a second that was a 5 to 10 ms stall of the event loop every
 * 200 ms (reading the log, writing the file, syncing it), the largest cause of the sends' p99 (decision 014). Here
 * the server's connection never checkpoints; a worker thread with a connection of its own does, passively (it
 * never waits for nor blocks a writer), every `intervalMs`. Once a checkpoint has caught up, the next commit starts
 * the log over from its beginning, so it stays small.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type SQLite from "better-sqlite3";

/** How often the worker checkpoints: about 2,000 log pages at the benchmark's 500 sends a second. */
export const CHECKPOINT_EVERY_MS = 500;

// Plain JavaScript, so that it runs the same under tsx, vitest and plain node.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.file);
const timer = setInterval(() => {
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
  } catch (error) {
    parentPort.postMessage({ failed: String(error) });
  }
}, workerData.intervalMs);
parentPort.once("message", () => {
  clearInterval(timer);
  try {
    db.close();
  } catch {}
  parentPort.close();
});
`;

const driver = createRequire(import.meta.url).resolve("better-sqlite3");

export interface BackgroundCheckpoint {
  /**
   * Stops the worker and, on the server's connection, checkpoints what is left and empties the log, so that a
   * stopped server leaves a database file complete in itself (one that is copied without its -wal file holds
   * everything). Resolves when the worker has closed its connection.
   */
  stop(): Promise<void>;
}

/**
 * Moves the checkpoints of `sqlite` (opened on `file`) to a worker thread. If the worker cannot run, or a checkpoint
 * fails there, the connection goes back to checkpointing itself, so the log never grows without bound.
 */
export function checkpointInBackground(
  sqlite: SQLite.Database,
  file: string,
  onFailure: (reason: string) => void,
  intervalMs = CHECKPOINT_EVERY_MS,
): BackgroundCheckpoint {
  sqlite.pragma("wal_autocheckpoint = 0");
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, file, intervalMs } });
  // The worker must not keep a process alive that is otherwise done (a CLI command, a test).
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  let stopped = false;
  const stopWorker = () => {
    if (!stopped) worker.postMessage("stop");
    stopped = true;
  };
  const stop = () => {
    stopWorker();
    // Waits (busy_timeout) for a checkpoint the worker may be running.
    if (sqlite.open) sqlite.pragma("wal_checkpoint(TRUNCATE)");
    return exited;
  };
  const fallBack = (reason: string) => {
    if (stopped) return;
    stopWorker();
    if (sqlite.open) sqlite.pragma("wal_autocheckpoint = 1000");
    onFailure(reason);
  };
  worker.on("message", (message: { failed?: unknown }) => fallBack(String(message.failed)));
  worker.on("error", (error) => fallBack(String(error)));
  return { stop };
}
