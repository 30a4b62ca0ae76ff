/**
 * Enforces each plan's retention on the server: expired messages are deleted for good and every open
 * view of their owner is told; discussions past their end are deleted with everything in them. Also renews
 * subscriptions and forgets old change-log entries.
 */

import type { Locks } from "../../adapters/locks.ts";
import type { Clock } from "../../clock.ts";
import type { ChangesRepository } from "../../feed/changes.repository.ts";
import type { UnitOfWork } from "../../feed/unit-of-work.ts";
import type { MessagesRepository } from "../messages/index.ts";
import { deleteUserMessages } from "../messages/index.ts";
import type { PlansRepository, PlansService } from "../plans/index.ts";

const BATCH = 1000;
/** How long a device may be away and still catch up change by change instead of refetching. */
export const CHANGE_LOG_KEEP_MS = 7 * 24 * 60 * 60 * 1000;

export interface SweepResult {
  deletedMessages: number;
  renewedSubscriptions: number;
  removedUploads: number;
  closedDiscussions: number;
}

export function createRetentionSweeper(deps: {
  clock: Clock;
  unitOfWork: UnitOfWork;
  plans: PlansService;
  plansRepository: PlansRepository;
  messages: MessagesRepository;
  changes: ChangesRepository;
  /** Ends the discussions past their end, with their messages and files; returns how many. */
  closeExpiredDiscussions?: () => Promise<number>;
  /** Deletes uploads that were started and never finished; returns how many. */
  removeAbandonedUploads?: () => Promise<number>;
  /** Where the sweepers of all processes take turns: one sweeps at a time. */
  locks: Locks;
  /** How long a sweeper's turn lasts unless it renews it (the sweep interval). */
  leaseMs: number;
  /** Told of each pass once it ends, whether it went through (the metrics count them). */
  onPass?: ((ok: boolean) => void) | undefined;
}) {
  const { clock, unitOfWork, messages, changes: changeLog } = deps;

  /**
   * Deletes one user's expired messages and, in the same transaction, recomputes the summary of each day
   * they were in from what remains, so no day keeps showing or counting them.
   */
  async function deleteForUser(userId: string, candidates: string[], cutoff: number): Promise<number> {
    const now = clock.now();
    const ids = await unitOfWork.forUser(userId, (work) =>
      deleteUserMessages(work, messages.in(work.trx), userId, candidates, now, cutoff),
    );
    return ids.length;
  }

  async function sweepMessages(): Promise<number> {
    const now = clock.now();
    let deleted = 0;
    for (const minutes of await deps.plansRepository.retentionsInUse()) {
      const cutoff = now - minutes * 60_000;
      for (;;) {
        const expired = await deps.plansRepository.expiredMessages(minutes, cutoff, BATCH);
        if (expired.length === 0) break;
        const byUser = new Map<string, string[]>();
        for (const m of expired) byUser.set(m.space_id, [...(byUser.get(m.space_id) ?? []), m.id]);
        for (const [userId, ids] of byUser) deleted += await deleteForUser(userId, ids, cutoff);
        if (expired.length < BATCH) break;
      }
    }
    return deleted;
  }

  let running: Promise<SweepResult> | undefined;

  /** One pass; concurrent calls share the pass in progress. */
  function sweep(): Promise<SweepResult> {
    running ??= (async () => {
      try {
        const renewedSubscriptions = await deps.plans.renewExpired();
        const deletedMessages = await sweepMessages();
        const closedDiscussions = (await deps.closeExpiredDiscussions?.()) ?? 0;
        await changeLog.pruneChanges(clock.now() - CHANGE_LOG_KEEP_MS);
        await messages.forgetExpiredMessages(clock.now() - CHANGE_LOG_KEEP_MS);
        const removedUploads = (await deps.removeAbandonedUploads?.()) ?? 0;
        deps.onPass?.(true);
        return { deletedMessages, renewedSubscriptions, removedUploads, closedDiscussions };
      } catch (error) {
        deps.onPass?.(false);
        throw error;
      } finally {
        running = undefined;
      }
    })();
    return running;
  }

  /** The turn in progress (a pass and its lock's release), awaited by `settled` before the stores close. */
  let leading: Promise<unknown> | undefined;

  /**
   * One pass, unless another process is sweeping: then undefined. Two passes at once would renew one
   * subscription twice and tell devices about the same deleted messages twice.
   */
  async function leadOnePass(): Promise<SweepResult | undefined> {
    const lease = await deps.locks.tryAcquire("retention-sweeper", deps.leaseMs);
    if (!lease) return undefined;
    const renew = setInterval(() => void lease.extend().catch(() => {}), deps.leaseMs / 3);
    try {
      return await sweep();
    } finally {
      clearInterval(renew);
      await lease.release();
    }
  }

  return {
    sweep,
    sweepAsLeader(): Promise<SweepResult | undefined> {
      const turn = leadOnePass();
      // Settles either way (the caller hears of a failure through `turn`).
      const tracked = turn
        .catch(() => {})
        .finally(() => {
          if (leading === tracked) leading = undefined;
        });
      leading = tracked;
      return turn;
    },
    /** Resolves once no pass is running here (a server stopping waits for it before closing the database). */
    async settled(): Promise<void> {
      await Promise.allSettled([leading, running]);
    },
  };
}

export type RetentionSweeper = ReturnType<typeof createRetentionSweeper>;
