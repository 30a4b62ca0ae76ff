/**
 * SQLite in WAL mode copies the log back into the database file ("checkpoints") on the connection that commits, by
 * default once the log holds 1,000 pages. Under steady sends that stalled the event loop again and again (reading
 * the log, writing the file, syncing it), the largest cause of late deliveries (decision 014). Here the server's
 * connection never checkpoints; a worker thread with a connection of its own does, passively (it never waits for nor
 * blocks a writer), every `intervalMs`.
 *
 * The log starts over from its beginning only at a write transaction that began with every page of it copied. While
 * sends keep coming, one is always under way or about to begin when a passive checkpoint ends, so that never happened:
 * the log grew by every page ever committed (a server under steady writes would fill its disk). So once a checkpoint
 * finds `behindFrames` pages or more in the log, the worker asks for a quiet moment: the server's connection is held
 * (`whileQuiet`: queries wait their turn, the event loop does not) while one more checkpoint copies the last few
 * pages, and the next commit starts the log over (its file cut back to `LOG_SIZE_LIMIT` if a burst made it longer).
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type SQLite from "better-sqlite3";

/** How often the worker checkpoints: often enough that each passive checkpoint has a modest part of the log to copy. */
const CHECKPOINT_EVERY_MS = 500;
/**
 * Pages in the log (64 MB at 4 KiB) from which the worker asks for a quiet moment: rare enough under steady sends
 * that the few sends waiting one out stay out of the p99 (a larger threshold made it worse: decision 014).
 */
const BEHIND_FRAMES = 16_384;
/** Bytes the log's file keeps when it starts over (a burst may have made it longer): about `BEHIND_FRAMES` pages. */
const LOG_SIZE_LIMIT = 64 * 1024 * 1024;

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
/** Waiting for the quiet moment it asked for: no checkpoint until then. */
let asked = false;
function finish() {
  clearInterval(timer);
  try {
    db?.close();
  } catch {}
  Atomics.store(state, 0, ${CLOSED});
  Atomics.notify(state, 0);
  parentPort.close();
}
/** Whether the log has grown long enough to ask for a quiet moment (its "all copied" may be stale: see above). */
function checkpoint() {
  const [result] = db.pragma("wal_checkpoint(PASSIVE)");
  return result.log >= workerData.behindFrames;
}
const timer = setInterval(() => {
  try {
    if (!db) {
      if (Atomics.compareExchange(state, 0, ${IDLE}, ${OPEN}) !== ${IDLE}) return finish();
      db = new Database(workerData.file, { fileMustExist: true });
    }
    if (Atomics.load(state, 0) !== ${OPEN}) return finish();
    if (!asked && checkpoint()) {
      asked = true;
      parentPort.postMessage({ behind: true });
    }
  } catch (error) {
    parentPort.postMessage({ failed: String(error) });
  }
}, workerData.intervalMs);
parentPort.on("message", (message) => {
  if (message === "stop") return finish();
  // The quiet moment: the server's connection is held until this answers.
  try {
    if (db && Atomics.load(state, 0) === ${OPEN}) checkpoint();
  } catch (error) {
    parentPort.postMessage({ failed: String(error) });
  }
  asked = false;
  parentPort.postMessage({ caughtUp: true });
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
  options: {
    onFailure: (reason: string) => void;
    /** Runs `work` while nothing else runs on `sqlite` (the server holds its connection); by default, at once. */
    whileQuiet?: (work: () => Promise<void>) => Promise<void>;
    intervalMs?: number;
    behindFrames?: number;
  },
): BackgroundCheckpoint {
  const { onFailure, whileQuiet = (work) => work(), intervalMs = CHECKPOINT_EVERY_MS, behindFrames = BEHIND_FRAMES } = options;
  sqlite.pragma("wal_autocheckpoint = 0");
  sqlite.pragma(`journal_size_limit = ${LOG_SIZE_LIMIT}`);
  const state = new SharedArrayBuffer(4);
  const flag = new Int32Array(state);
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, file, intervalMs, behindFrames, state } });
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
  /** Ends the quiet moment the worker was given, once it has checkpointed (or is gone). */
  let endQuiet: (() => void) | undefined;
  const quietEnded = () => {
    endQuiet?.();
    endQuiet = undefined;
  };
  const quietMoment = () =>
    new Promise<void>((resolve) => {
      if (stopped) return resolve();
      endQuiet = resolve;
      worker.postMessage("catch-up");
    });
  worker.on("message", (message: { behind?: true; caughtUp?: true; failed?: unknown }) => {
    if (message.behind) void whileQuiet(quietMoment).catch((error) => fallBack(String(error)));
    else if (message.caughtUp) quietEnded();
    else fallBack(String(message.failed));
  });
  worker.on("error", (error) => fallBack(String(error)));
  worker.once("exit", quietEnded);
  return { stop };
}
