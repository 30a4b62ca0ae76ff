/**
 * Transactions for short, frequent writes (a message's send). On SQLite the commit was the largest single cost
 * of a send (writing the WAL), and there is one writer anyway: so the works that arrive in one event-loop turn,
 * or while the database is busy, share one BEGIN…COMMIT. A lone work is not held back to wait for company (that
 * made every send wait and saved no CPU: decision 014). A batch runs without savepoints; if any of its
 * works fails, the whole batch is rolled back and each work runs again alone in its own transaction, so a failure
 * (a resent id, a refused send) still fails only its own caller. A work may therefore run twice: it must do nothing
 * but its statements. A work's promise settles only after its commit, so nothing is announced before it is
 * stored. On PostgreSQL each work keeps its own transaction (a shared one would hold every user's row
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

/** Most works in one transaction. */
const MAX_BATCH = 256;

/** Works that arrive together share one transaction (SQLite: see above). */
export function groupCommit(db: Db): Transact {
  let queue: Pending[] = [];
  let running = false;

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
      const batch = queue.slice(0, MAX_BATCH);
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
      // The rest of this turn's requests join the batch.
      setImmediate(() => void drain());
    });
}
