/**
 * Each device numbers what it sends (docs/protocol/encryption.md, "Sealed messages"), so a device that reads can tell
 * when the server dropped or held back one of them. The number travels sealed inside the message's text (a file's
 * name), bound with it to its place, and is counted in the device's own key state, so a reload or a restart goes on.
 */
import { z } from "zod";

/** A message's place among its device's sends, sealed with it. */
export interface SendNumber {
  /** The sending device's key id. */
  k: string;
  /** Its number among everything that key sent: 1, 2, … */
  n: number;
  /** Its index among what that key sent to this date: 0, 1, … */
  d: number;
  /** Indices on this date given out before and not yet stored when this was sealed (a queued send, an upload). */
  u?: number[];
}

/** Indices listed as under way at most: the number's JSON stays within SEND_NUMBER_MAX_BYTES. */
const MAX_UNDER_WAY = 40;

const sendNumberSchema = z.object({
  k: z.string().min(1).max(200),
  n: z.number().int().positive(),
  d: z.number().int().nonnegative(),
  u: z.array(z.number().int().nonnegative()).max(MAX_UNDER_WAY).optional(),
});

/** Starts a numbered text: a control character no typed text begins with, the number as JSON, and the same again. */
const MARK = "\u0001";

export function numberedText(number: SendNumber, text: string): string {
  return `${MARK}${JSON.stringify(number)}${MARK}${text}`;
}

/** The text and its number; an older message has none. Undefined when it is marked but the number does not parse. */
export function splitNumbered(plain: string): { text: string; number?: SendNumber } | undefined {
  if (!plain.startsWith(MARK)) return { text: plain };
  const end = plain.indexOf(MARK, 1);
  if (end < 0) return undefined;
  try {
    const parsed = sendNumberSchema.safeParse(JSON.parse(plain.slice(1, end)));
    return parsed.success ? { text: plain.slice(end + 1), number: parsed.data } : undefined;
  } catch {
    return undefined;
  }
}

/** What a device keeps of its numbering, beside its keys (reset with them: numbers are per key). */
export interface SendNumbersState {
  next: number;
  /** How many it sent to each recent date. */
  dates: Record<string, number>;
  /** The numbers given to recent message ids, so a retry of the same message keeps its number. */
  given: { id: string; n: number; date: string; d: number; stored?: boolean }[];
}

export interface SendNumbersStore {
  load(): Promise<SendNumbersState | undefined>;
  save(state: SendNumbersState): Promise<void>;
}

const KEEP_DATES = 62;
const KEEP_GIVEN = 200;

/** Gives each message id its number once, and notes which were stored by the server. */
export class SendNumbering {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly keyId: string,
    private readonly store: SendNumbersStore,
  ) {}

  /** The number of the message `id` sent to `date`: the one it got before, or the next. */
  take(id: string, date: string): Promise<SendNumber> {
    return this.serially(async (state) => {
      let given = state.given.find((g) => g.id === id);
      if (!given) {
        const d = state.dates[date] ?? 0;
        given = { id, n: state.next, date, d };
        state.next += 1;
        // Kept in the order last sent to, so the dates pruned are those longest unused.
        delete state.dates[date];
        state.dates[date] = d + 1;
        state.given.push(given);
      }
      const open = state.given.filter((g) => g.date === date && g.id !== id && !g.stored && g.d < given.d).map((g) => g.d);
      return { k: this.keyId, n: given.n, d: given.d, ...(open.length > 0 && { u: open.slice(-MAX_UNDER_WAY) }) };
    });
  }

  /** The server stored message `id`: later messages no longer list it as under way. */
  stored(id: string): Promise<void> {
    return this.serially(async (state) => {
      const given = state.given.find((g) => g.id === id);
      if (given) given.stored = true;
    });
  }

  private serially<T>(step: (state: SendNumbersState) => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => {
      const state = (await this.store.load()) ?? { next: 1, dates: {}, given: [] };
      const result = await step(state);
      await this.store.save(pruned(state));
      return result;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}

function pruned(state: SendNumbersState): SendNumbersState {
  const dates = Object.keys(state.dates).slice(-KEEP_DATES);
  return {
    next: state.next,
    dates: Object.fromEntries(dates.map((date) => [date, state.dates[date] ?? 0])),
    given: state.given.slice(-KEEP_GIVEN),
  };
}

/** Numbering kept in memory only (a test device, a process that keeps no state). */
export function memorySendNumbers(): SendNumbersStore & { readonly state: SendNumbersState | undefined } {
  let kept: SendNumbersState | undefined;
  return {
    get state() {
      return kept;
    },
    load: async () => (kept ? structuredClone(kept) : undefined),
    save: async (state) => {
      kept = structuredClone(state);
    },
  };
}
