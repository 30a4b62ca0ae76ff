/**
 * The one way a change of someone's data is written: a transaction that takes its locks in the one order, logs each
 * change to the change log, and publishes its event (built by the change's kind, `kinds/`) once, only after the
 * commit. A service states what changed (`record`); it never touches the bus, the lock order or the transaction's
 * batching itself.
 *
 * Lock order, enforced here for every writer: a space's row, then its members' user rows in id order (a user about
 * to join among them), or a single user's row. Nothing locks a user row and then a space row, so two writers never
 * wait on each other in a circle, and `users.seq` hands out numbers in commit order without gaps.
 */
import type { ServerLiveEvent as LiveEvent } from "@daysync/shared";
import type { Transaction } from "kysely";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import type { Transact } from "../db/group-commit.ts";
import type { Database } from "../db/schema.ts";
import type { BusTopics, EventBus, Topic, UserChange } from "../events/event-bus.ts";
import type { Change } from "./change.ts";
import type { ChangesRepository, Claimed } from "./changes.repository.ts";
import { type FactsArgs, liveEventOf } from "./kinds/index.ts";

/** The device a change came from (none for the server's own: the retention sweep, an operator's command). */
export interface Origin {
  userId: string;
  sessionId: string;
}

/** A change once committed, as its subscribers (push, file clean-up) hear it: once, with everyone it was logged to. */
export interface Committed {
  change: Change;
  event: LiveEvent;
  userIds: readonly string[];
  origin: Origin | undefined;
}

type Subscriber = (committed: Committed) => Promise<void> | void;

export interface Work {
  trx: Transaction<Database>;
  /**
   * Logs `change` to each of these users' logs; its event, presented from `facts` (the rows it is about, which the
   * service holds; none for a change that says all), reaches their devices once the transaction commits.
   */
  record<C extends Change>(userIds: readonly string[], change: C, ...facts: FactsArgs<C["kind"]>): Promise<void>;
  /**
   * A send's first statement: takes the user's next sequence number, their plan's retention and their key state,
   * locking their row (undefined: no such user). The change is then logged under that number with `recordClaimed`.
   */
  claimSeq(userId: string): Promise<Claimed | undefined>;
  recordClaimed<C extends Change>(userId: string, seq: number, change: C, ...facts: FactsArgs<C["kind"]>): Promise<void>;
  /** A notice on the bus that logs no change (a cache to forget, a waiting device to wake): published once committed. */
  notify<T extends Topic>(topic: T, payload: BusTopics[T]): void;
}

export function createUnitOfWork(deps: {
  db: Db;
  bus: EventBus;
  clock: Clock;
  changes: ChangesRepository;
  /** A subscriber that failed: the change stands (it is committed); what followed from it is reported. */
  onSubscriberError?: (error: unknown, change: Change) => void;
  /** Where sends commit: shared by concurrent sends on SQLite (`group-commit.ts`), alone on PostgreSQL. */
  sendTransaction?: Transact;
}) {
  const { db, bus, clock, changes } = deps;
  const sendTransaction: Transact = deps.sendTransaction ?? ((work) => db.transaction().execute(work));

  const subscribers = new Map<Change["kind"], Subscriber[]>();

  interface Recorded {
    published: UserChange[];
    committed: Committed[];
    notices: Array<() => void>;
  }

  function workIn(log: ChangesRepository, trx: Transaction<Database>, recorded: Recorded, origin: Origin | undefined): Work {
    return {
      trx,
      claimSeq: (userId) => log.nextSeqAndRetention(userId),
      async record(userIds, change, ...facts) {
        const event = liveEventOf(change, facts[0]);
        const logged = await log.appendToUsers(userIds, change, clock.now());
        for (const { userId, seq } of logged) recorded.published.push({ userId, seq, event });
        if (logged.length > 0) recorded.committed.push({ change, event, userIds, origin });
      },
      async recordClaimed(userId, seq, change, ...facts) {
        const event = liveEventOf(change, facts[0]);
        await log.record(userId, seq, change, clock.now());
        recorded.published.push({ userId, seq, event });
        recorded.committed.push({ change, event, userIds: [userId], origin });
      },
      notify(topic, payload) {
        recorded.notices.push(() => bus.publish(topic, payload));
      },
    };
  }

  /**
   * Runs `work` in `transact`. A work may be run again (a batch that failed is retried one by one): each run gets a
   * fresh list of what it recorded, and only the run that committed is published and told to subscribers, which
   * are awaited before the caller hears back (a deleted message's file is gone when its DELETE answers).
   */
  async function run<T>(transact: Transact, work: (w: Work, log: ChangesRepository) => Promise<T>, origin?: Origin): Promise<T> {
    const { value, recorded } = await transact(async (trx) => {
      const recorded: Recorded = { published: [], committed: [], notices: [] };
      const log = changes.in(trx);
      return { value: await work(workIn(log, trx, recorded, origin), log), recorded };
    });
    for (const change of recorded.published) bus.publish("change", change);
    for (const notice of recorded.notices) notice();
    for (const committed of recorded.committed) {
      for (const subscriber of subscribers.get(committed.change.kind) ?? []) {
        try {
          // Most subscribers answer at once (a push goes in the background): only a promise is waited for.
          const pending = subscriber(committed);
          if (pending) await pending;
        } catch (error) {
          deps.onSubscriberError?.(error, committed.change);
        }
      }
    }
    return value;
  }

  return {
    /** What follows from a kind of change once it is committed (push, file clean-up), wherever it was made. */
    subscribe(kinds: Array<Change["kind"]>, subscriber: Subscriber): void {
      for (const kind of kinds) subscribers.set(kind, [...(subscribers.get(kind) ?? []), subscriber]);
    },

    /** A change of one user's own data, their row locked first. */
    forUser<T>(userId: string, work: (w: Work) => Promise<T>, origin?: Origin): Promise<T> {
      return run(
        (inner) => db.transaction().execute(inner),
        async (w, log) => {
          await log.lockUser(userId);
          return work(w);
        },
        origin,
      );
    },

    /** Work that logs no change, so locks no row (a pairing request's step): its notices go out once it commits. */
    forNotices<T>(work: (w: Work) => Promise<T>): Promise<T> {
      return run((inner) => db.transaction().execute(inner), work);
    },

    /**
     * A change of a shared space (a discussion) whose changes go to every member's log (decision 016): the space's
     * row first, so its own changes run one at a time and its member list cannot change underneath, then each active
     * member's row in id order. `work` gets the active members' user ids, sorted; none if the space is gone.
     * `joining`: a user about to become a member, locked in the same order (and not in the ids unless already one).
     */
    forSpace<T>(
      spaceId: string,
      work: (w: Work, memberIds: string[]) => Promise<T>,
      options: { joining?: string; origin?: Origin } = {},
    ): Promise<T> {
      return run(
        (inner) => db.transaction().execute(inner),
        async (w, log) => {
          const members = await log.lockSpace(spaceId);
          if (!members) return work(w, []);
          // Sorted here, not by the database's collation (which may ignore the hyphens), so every writer agrees.
          const memberIds = members.sort();
          const { joining } = options;
          for (const userId of [...new Set(joining ? [...memberIds, joining] : memberIds)].sort()) await log.lockUser(userId);
          return work(w, memberIds);
        },
        options.origin,
      );
    },

    /**
     * A message's send: short and frequent, so on SQLite sends that arrive together share one commit. The work
     * locks the user's row itself, with its first statement (`changes.nextSeqAndRetention`).
     */
    send<T>(work: (w: Work) => Promise<T>, origin: Origin): Promise<T> {
      return run(sendTransaction, work, origin);
    },
  };
}

export type UnitOfWork = ReturnType<typeof createUnitOfWork>;
