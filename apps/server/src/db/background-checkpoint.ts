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

// The worker's state, shared with it: it opens its connection only at its first checkpoint and only if the server's
// connection is not closing by then (a short-lived process, an admin command, never opens one), and it never creates
// a database file. A worker that booted late once did, in a data folder being removed after its server stopped.
const IDLE = 0;
const OPEN = 1;
const STOPPING = 2;
const CLOSED = 3;

// Plain JavaScript, so that it runs the same under tsx, vitest and plain node.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const state = new Int32Array(workerData.state);
let db;
function finish() {
  clearInterval(timer);
  try {
    db?.close();
  } catch {}
  Atomics.store(state, 0, ${CLOSED});
  Atomics.notify(state, 0);
  parentPort.close();
}
const timer = setInterval(() => {
  try {
    if (!db) {
      if (Atomics.compareExchange(state, 0, ${IDLE}, ${OPEN}) !== ${IDLE}) return finish();
      db = new Database(workerData.file, { fileMustExist: true });
    }
    if (Atomics.load(state, 0) !== ${OPEN}) return finish();
    db.pragma("wal_checkpoint(PASSIVE)");
  } catch (error) {
    parentPort.postMessage({ failed: String(error) });
  }
}, workerData.intervalMs);
parentPort.once("message", finish);
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
  const state = new SharedArrayBuffer(4);
  const flag = new Int32Array(state);
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, file, intervalMs, state } });
  // The worker must not keep a process alive that is otherwise done (a CLI command, a test).
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  let stopped = false;
  /** Tells the worker to stop; returns whether it had a connection open by then (it closes it on its own thread). */
  const stopWorker = (): boolean => {
    if (stopped) return false;
    stopped = true;
    const was = Atomics.exchange(flag, 0, STOPPING);
    worker.postMessage("stop");
    return was === OPEN;
  };
  const stop = () => {
    // A worker with a connection open closes it before the server's does, so that the server's is the last and
    // nothing touches the database's files once it is closed (at most a checkpoint's time; 2 s if the worker hangs).
    if (stopWorker()) Atomics.wait(flag, 0, STOPPING, 2_000);
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
