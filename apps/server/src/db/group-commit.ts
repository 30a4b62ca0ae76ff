/**
 * Transactions for short, frequent writes (a message's send). On SQLite the commit was the largest single cost
 * of a send (writing the WAL, and now and then checkpointing it: 16% of busy CPU when 64 clients send into one
 * day, a quarter of a lone send's), and there is one writer anyway: so the works that arrive while the database is
 * busy, or within a short window after the first, share one BEGIN…COMMIT. A batch runs without savepoints; if
 * any of its works fails, the whole batch is rolled back and each work runs again alone in its own transaction,
 * so a failure (a resent id, a refused send) still fails only its own caller. A work may therefore run twice: it
 * must do nothing but its statements. A work's promise settles only after its commit, so nothing is announced
 * before it is stored. On PostgreSQL each work keeps its own transaction (a shared one would hold every user's row
 * lock until the slowest send ends).
 */
import type { Transaction } from "kysely";
import type { Db } from "./database.ts";
import type { Database } from "./schema.ts";

export type Transact = <T>(work: (trx: Transaction<Database>) => Promise<T>) => Promise<T>;

interface Pending {
  work: (trx: Transaction<Database>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** One transaction per work. */
export function separateTransactions(db: Db): Transact {
  return (work) => db.transaction().execute(work);
}

export interface GroupCommitOptions {
  /** Most works in one transaction. */
  maxBatch?: number;
  /**
   * Least time between the starts of two batches while the database is idle (0: none). At 500 sends a second they
   * arrive about 2 ms apart, each alone, each paying a commit; spaced 4 ms apart, batches hold two or three. A
   * work that comes after a quiet spell starts at once; one that comes sooner after the last batch began waits
   * for the rest of the spacing: at most that much latency, and only when sends are frequent.
   */
  spacingMs?: number;
}

/** Works that arrive together share one transaction (SQLite: see above). */
export function groupCommit(db: Db, options: GroupCommitOptions = {}): Transact {
  const { maxBatch = 256, spacingMs = 0 } = options;
  let queue: Pending[] = [];
  let running = false;
  let lastStart = Number.NEGATIVE_INFINITY;

  const alone = (item: Pending) => db.transaction().execute(item.work).then(item.resolve, item.reject);

  async function runBatch(batch: Pending[]): Promise<void> {
    const [only] = batch;
    if (only && batch.length === 1) return alone(only);
    let values: unknown[];
    try {
      values = await db.transaction().execute(async (trx) => {
        const done: unknown[] = [];
        for (const item of batch) done.push(await item.work(trx));
        return done;
      });
    } catch {
      // One work failed (or the commit did): nothing of the batch is stored. Each runs again on its own, so only
      // a work that fails alone fails its caller. Rare: a resent id, a refused send.
      for (const item of batch) await alone(item);
      return;
    }
    for (const [i, item] of batch.entries()) item.resolve(values[i]);
  }

  async function drain(): Promise<void> {
    while (queue.length > 0) {
      lastStart = performance.now();
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
      await runBatch(batch);
    }
    running = false;
  }

  return <T>(work: (trx: Transaction<Database>) => Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (running) return;
      running = true;
      // The rest of this turn's requests (and those of the rest of the spacing) join the batch.
      const wait = lastStart + spacingMs - performance.now();
      if (wait >= 1) setTimeout(() => void drain(), wait);
      else setImmediate(() => void drain());
    });
}
