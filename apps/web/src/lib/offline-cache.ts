/**
 * What this device last had of a signed-in user, kept so the app opens offline with it: who is signed in, and the
 * query cache entries the caller names (days, messages, discussions). Kept in localStorage under the user's id, so it
 * is read back synchronously before the first render, never shown to another account, and removed at sign-out.
 */
import { type User, userSchema } from "@daysync/shared";
import type { Query, QueryClient, QueryKey } from "@tanstack/react-query";
import { z } from "zod";
import { readStorage, writeStorage } from "./storage.ts";

const KNOWN_USER_KEY = "daysync:signed-in-user";
const cacheKey = (userId: string) => `daysync:offline-cache:${userId}`;
/** Written again at most this often while the cache changes (and at once when the page is hidden). */
const WRITE_DELAY_MS = 500;

/** The user this device was last signed in as, for a start without the network. */
export function knownUser(): User | null {
  const raw = readStorage(KNOWN_USER_KEY);
  if (raw === null) return null;
  try {
    const parsed = userSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The server said who is signed in (null: nobody): a user that is no longer is forgotten with what was kept of them. */
export function rememberUser(user: User | null): void {
  const previous = knownUser();
  if (previous && previous.id !== user?.id) writeStorage(cacheKey(previous.id), null);
  writeStorage(KNOWN_USER_KEY, user ? JSON.stringify(user) : null);
}

/**
 * Users signed out on this page: a copy still due to be written (its delay, or the page going away before the
 * provider's clean-up ran) is dropped rather than bringing their data back.
 */
const forgotten = new Set<string>();

/** Sign-out on this device: nothing of the user stays in it. */
export function forgetUser(userId: string): void {
  forgotten.add(userId);
  writeStorage(cacheKey(userId), null);
  if (knownUser()?.id === userId) writeStorage(KNOWN_USER_KEY, null);
}

/**
 * One kind of cache entry kept offline, by the first part of its query key: the schema its data is read back with
 * (a stored copy of an older shape is dropped, not shown), and what of it may still be shown now (undefined: none
 * of it, such as a discussion that has ended; messages that have expired are left out).
 */
export interface KeptKind<T> {
  schema: z.ZodType<T>;
  /** How many entries of this kind are kept, the most recently updated first; all when not set. */
  max?: number;
  stillShown?: (data: T, now: number) => T | undefined;
}

// biome-ignore lint/suspicious/noExplicitAny: a map of kinds of different data types.
export type KeptKinds = Record<string, KeptKind<any>>;

const storedSchema = z.object({
  entries: z.array(z.object({ key: z.array(z.unknown()), updatedAt: z.number(), data: z.unknown() })),
});

/** The entries kept of one user, written while the cache changes; `restore` fills the cache back. */
export class OfflineCache {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly userId: string,
    private readonly queryClient: QueryClient,
    private readonly kinds: KeptKinds,
  ) {
    // Kept entries outlive the screens that show them, or a day not opened this session would drop out of the copy.
    for (const name of Object.keys(kinds)) queryClient.setQueryDefaults([name], { gcTime: Number.POSITIVE_INFINITY });
  }

  /**
   * Puts what was kept back into the cache where nothing newer is there, marked stale: shown at once, and fetched
   * again as soon as there is a network. The live position is saved at each event but the copy only a moment
   * later, so a page that goes in between leaves a copy older than the position it would resume from.
   */
  restore(): void {
    const raw = readStorage(cacheKey(this.userId));
    if (raw === null) return;
    let stored: z.infer<typeof storedSchema>;
    try {
      const parsed = storedSchema.safeParse(JSON.parse(raw));
      if (!parsed.success) return;
      stored = parsed.data;
    } catch {
      return;
    }
    const now = Date.now();
    for (const { key, updatedAt, data } of stored.entries) {
      const kind = this.kinds[String(key[0])];
      const read = kind?.schema.safeParse(data);
      if (!kind || !read?.success) continue;
      const shown = kind.stillShown ? kind.stillShown(read.data, now) : read.data;
      if (shown === undefined) continue;
      if ((this.queryClient.getQueryState(key)?.dataUpdatedAt ?? 0) >= updatedAt) continue;
      this.queryClient.setQueryData(key, shown, { updatedAt });
      void this.queryClient.invalidateQueries({ queryKey: key, exact: true, refetchType: "none" });
    }
  }

  start(): void {
    forgotten.delete(this.userId);
    this.unsubscribe = this.queryClient.getQueryCache().subscribe((event) => {
      if (event.type !== "updated" && event.type !== "removed") return;
      if (!this.kept(event.query.queryKey)) return;
      if (this.timer === undefined) this.timer = setTimeout(this.write, WRITE_DELAY_MS);
    });
    document.addEventListener("visibilitychange", this.writeWhenHidden);
    window.addEventListener("pagehide", this.writeNow);
  }

  /** Stops writing; a write not yet made is dropped (after a sign-out it would bring the user's data back). */
  stop(): void {
    this.unsubscribe?.();
    clearTimeout(this.timer);
    this.timer = undefined;
    document.removeEventListener("visibilitychange", this.writeWhenHidden);
    window.removeEventListener("pagehide", this.writeNow);
  }

  private kept(key: QueryKey): boolean {
    return Object.hasOwn(this.kinds, String(key[0]));
  }

  private readonly write = () => {
    this.timer = undefined;
    if (forgotten.has(this.userId)) return;
    const byKind = new Map<string, Query[]>();
    for (const query of this.queryClient.getQueryCache().getAll()) {
      if (query.state.status !== "success" || query.state.data === undefined || !this.kept(query.queryKey)) continue;
      const name = String(query.queryKey[0]);
      byKind.set(name, [...(byKind.get(name) ?? []), query]);
    }
    const entries = [...byKind].flatMap(([name, queries]) =>
      queries
        .sort((a, b) => b.state.dataUpdatedAt - a.state.dataUpdatedAt)
        .slice(0, this.kinds[name]?.max ?? queries.length)
        .map((q) => ({ key: q.queryKey, updatedAt: q.state.dataUpdatedAt, data: q.state.data })),
    );
    // Too large for the storage left: an older copy would show what has changed since, so none is kept.
    if (!writeStorage(cacheKey(this.userId), JSON.stringify({ entries }))) writeStorage(cacheKey(this.userId), null);
  };

  private readonly writeNow = () => {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.write();
  };

  private readonly writeWhenHidden = () => {
    if (document.visibilityState === "hidden") this.writeNow();
  };
}
