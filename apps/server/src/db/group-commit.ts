/**
 * Transactions for short, frequent writes (a message's send). On SQLite the commit was the largest single cost
 * of a send (writing the WAL, and now and then checkpointing it: 16% of busy CPU when 64 clients send into one
 * day), and there is one writer anyway: so the works that arrive while the database is busy, or in the same
 * event-loop turn, share one BEGIN…COMMIT. Each runs inside its own SAVEPOINT: one that fails is rolled back
 * alone and its caller gets its error, the others commit. A work's promise settles only after the commit, so
 * nothing is announced before it is durable. On PostgreSQL each work keeps its own transaction (a shared one
 * would hold every user's row lock until the slowest send ends).
 */
import { CompiledQuery, type Transaction } from "kysely";
import type { Db } from "./database.ts";
import type { Database } from "./schema.ts";

export type Transact = <T>(work: (trx: Transaction<Database>) => Promise<T>) => Promise<T>;

// Fixed statements, compiled once.
const SAVEPOINT = CompiledQuery.raw("savepoint one_work");
const RELEASE = CompiledQuery.raw("release one_work");
const ROLLBACK_TO = CompiledQuery.raw("rollback to one_work");

interface Pending {
  work: (trx: Transaction<Database>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** One transaction per work. */
export function separateTransactions(db: Db): Transact {
  return (work) => db.transaction().execute(work);
}

/** Works that arrive together share one transaction, each in a savepoint (SQLite: see above). */
export function groupCommit(db: Db, maxBatch = 256): Transact {
  let queue: Pending[] = [];
  let running = false;

  async function runBatch(batch: Pending[]): Promise<void> {
    const [only] = batch;
    if (only && batch.length === 1) {
      // Alone (the usual case below a few hundred sends a second): its own transaction, no savepoint needed.
      await db.transaction().execute(only.work).then(only.resolve, only.reject);
      return;
    }
    const outcomes: { ok: boolean; value: unknown }[] = [];
    try {
      await db.transaction().execute(async (trx) => {
        for (const item of batch) {
          await trx.executeQuery(SAVEPOINT);
          try {
            const value = await item.work(trx);
            await trx.executeQuery(RELEASE);
            outcomes.push({ ok: true, value });
          } catch (error) {
            await trx.executeQuery(ROLLBACK_TO);
            await trx.executeQuery(RELEASE);
            outcomes.push({ ok: false, value: error });
          }
        }
      });
    } catch (error) {
      // The commit (or a rollback to a savepoint) failed: nothing of the batch was stored.
      for (const item of batch) item.reject(error);
      return;
    }
    batch.forEach((item, i) => {
      const outcome = outcomes[i];
      if (outcome?.ok) item.resolve(outcome.value);
      else item.reject(outcome?.value);
    });
  }

  async function drain(): Promise<void> {
    while (queue.length > 0) {
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
      // The rest of this turn's requests join the batch.
      setImmediate(() => void drain());
    });
}
