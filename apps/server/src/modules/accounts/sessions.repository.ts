/** Sessions: one per signed-in device. The cookie holds a random token; only its hash is stored. */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { batchedReads } from "../../db/batched-reads.ts";
import { compiledOnce } from "../../db/compiled-query.ts";
import type { Db } from "../../db/database.ts";
import type { SessionsTable } from "../../db/schema.ts";
import { SESSION_LIFETIME_MS, type SessionAuth } from "../../http/auth.ts";
import { describeUserAgent } from "../../presenters/device-name.ts";
import { deleteWrapsOfSession } from "../keys/index.ts";
import { keyStateRowsOfKeys } from "./key-state.repository.ts";

const TOUCH_EVERY_MS = 60_000;
/**
 * How long a looked-up session is served from memory. A sign-out clears it at once in every process (through the
 * bus); a session deleted any other way (expiry) is still accepted for at most this long.
 */
export const SESSION_CACHE_MS = 5_000;

/** The name a device goes by: the one the user gave it, else one made from its User-Agent. */
export const deviceNameOf = (row: { name: string | null; user_agent: string }) => row.name ?? describeUserAgent(row.user_agent).name;

// Every request's session look-up (when its cached one is over) and last-seen write, built once (see `compiledOnce`).
// A session of a disabled account is no session (issue 42): one made as the account was disabled is refused too.
type SessionRow = Pick<SessionsTable, "id" | "user_id" | "last_seen_at" | "name" | "user_agent" | "token_hash"> & {
  disabled_at: number | null;
};
const sessionsWithUser = (db: Db) =>
  db
    .selectFrom("sessions")
    .innerJoin("users", "users.id", "sessions.user_id")
    .select([
      "sessions.id",
      "sessions.user_id",
      "sessions.last_seen_at",
      "sessions.name",
      "sessions.user_agent",
      "sessions.token_hash",
      "users.disabled_at",
    ]);
const sessionByTokenQuery = compiledOnce<"tokenHash", SessionRow>((db: Db, p) =>
  sessionsWithUser(db).where("sessions.token_hash", "=", p.tokenHash),
);
const touchQuery = compiledOnce<"id" | "now" | "seenBefore", unknown>((db: Db, p) =>
  db.updateTable("sessions").set({ last_seen_at: p.now }).where("id", "=", p.id).where("last_seen_at", "<", p.seenBefore),
);

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

export function createSessionsRepository(db: Db) {
  /** When this process last wrote each session's last_seen_at (or read it, fresh, from the database). */
  const lastWritten = new Map<string, number>();
  const byTokenHash = new Map<string, { auth: SessionAuth; lastSeen: number; until: number }>();
  let lastPrune = 0;
  // The look-ups of one turn in one statement: after a restart every device's socket comes back within seconds.
  const sessionByTokenHash = batchedReads<SessionRow>(async (tokenHashes) => {
    const rows =
      tokenHashes.length === 1
        ? (await sessionByTokenQuery(db, { tokenHash: tokenHashes[0] ?? "" })).rows
        : await sessionsWithUser(db).where("sessions.token_hash", "in", tokenHashes).execute();
    return new Map(rows.map((row) => [row.token_hash, row]));
  });

  /** Drops what can no longer save a statement, so neither map grows with every session ever seen. */
  function prune(now: number) {
    if (now - lastPrune < TOUCH_EVERY_MS) return;
    lastPrune = now;
    for (const [id, at] of lastWritten) if (now - at >= TOUCH_EVERY_MS) lastWritten.delete(id);
    for (const [hash, entry] of byTokenHash) if (entry.until <= now) byTokenHash.delete(hash);
  }

  /**
   * Marks the session seen now, at most once a minute per session and process, without a statement in between:
   * devices send requests and answer heartbeats far more often than that.
   */
  async function touch(sessionId: string, now: number): Promise<void> {
    prune(now);
    const last = lastWritten.get(sessionId);
    if (last !== undefined && now - last < TOUCH_EVERY_MS) return;
    lastWritten.set(sessionId, now);
    await touchQuery(db, { id: sessionId, now, seenBefore: now - TOUCH_EVERY_MS });
  }

  /** Forgets a signed-out or renamed session's cached lookup (called for every such notice on the bus). */
  function forget(sessionId: string): void {
    lastWritten.delete(sessionId);
    for (const [hash, entry] of byTokenHash) if (entry.auth.sessionId === sessionId) byTokenHash.delete(hash);
  }

  return {
    touch,
    forget,

    async create(userId: string, device: { userAgent: string; ip: string }, now: number): Promise<{ id: string; token: string }> {
      const token = randomBytes(32).toString("base64url");
      const id = randomUUID();
      await db
        .insertInto("sessions")
        .values({
          id,
          user_id: userId,
          token_hash: hashToken(token),
          user_agent: device.userAgent.slice(0, 512),
          ip: device.ip,
          created_at: now,
          last_seen_at: now,
        })
        .execute();
      lastWritten.set(id, now);
      return { id, token };
    },

    /** The session of a cookie token, if it is still valid; refreshes last-seen at most once a minute. */
    async authenticate(token: string, now: number): Promise<SessionAuth | undefined> {
      const tokenHash = hashToken(token);
      const cached = byTokenHash.get(tokenHash);
      if (cached && cached.until > now && now - cached.lastSeen <= SESSION_LIFETIME_MS) {
        await touch(cached.auth.sessionId, now);
        return cached.auth;
      }
      byTokenHash.delete(tokenHash);
      const row = await sessionByTokenHash(tokenHash);
      if (!row || row.disabled_at !== null) return undefined;
      const lastSeen = Number(row.last_seen_at);
      if (now - lastSeen > SESSION_LIFETIME_MS) {
        // A device that held the key and expired unseen counts as removed: the next epoch leaves it out.
        await deleteWrapsOfSession(db, keyStateRowsOfKeys, row.user_id, row.id, now);
        await db.deleteFrom("sessions").where("id", "=", row.id).execute();
        return undefined;
      }
      // Written less than a minute ago (by any process): nothing to write until that minute is over.
      if (now - lastSeen < TOUCH_EVERY_MS && !lastWritten.has(row.id)) lastWritten.set(row.id, lastSeen);
      await touch(row.id, now);
      const auth = { sessionId: row.id, userId: row.user_id, deviceName: deviceNameOf(row) };
      byTokenHash.set(tokenHash, { auth, lastSeen, until: now + SESSION_CACHE_MS });
      return auth;
    },

    /** Whether the session still exists, read from the database and not the cache: for work that outlasts its request's check. */
    async exists(sessionId: string): Promise<boolean> {
      return (await db.selectFrom("sessions").select("id").where("id", "=", sessionId).executeTakeFirst()) !== undefined;
    },

    /** Stores that the session was seen at `now` (its device's live connection just closed). */
    async markSeen(sessionId: string, now: number): Promise<void> {
      lastWritten.set(sessionId, now);
      await db.updateTable("sessions").set({ last_seen_at: now }).where("id", "=", sessionId).where("last_seen_at", "<", now).execute();
    },

    /** Stores that the session's person just passed a fresh check at a provider. */
    async markReauthenticated(sessionId: string, now: number): Promise<void> {
      await db.updateTable("sessions").set({ reauthenticated_at: now }).where("id", "=", sessionId).execute();
    },

    /** When the session last passed a fresh check at a provider; null when never (or no such session). */
    async reauthenticatedAt(sessionId: string): Promise<number | null> {
      const row = await db.selectFrom("sessions").select("reauthenticated_at").where("id", "=", sessionId).executeTakeFirst();
      return row?.reauthenticated_at == null ? null : Number(row.reauthenticated_at);
    },

    async remove(sessionId: string): Promise<void> {
      forget(sessionId);
      await db.deleteFrom("sessions").where("id", "=", sessionId).execute();
    },
  };
}

export type SessionsRepository = ReturnType<typeof createSessionsRepository>;

/**
 * The devices module's writes of a session (it ranks below accounts, so the composition root hands it these): each
 * only if the session is the user's, and whether it was.
 */
export const sessionRowsOfDevices = {
  async delete(db: Db, userId: string, sessionId: string): Promise<boolean> {
    const result = await db.deleteFrom("sessions").where("user_id", "=", userId).where("id", "=", sessionId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  },
  async rename(db: Db, userId: string, sessionId: string, name: string): Promise<boolean> {
    const result = await db
      .updateTable("sessions")
      .set({ name })
      .where("user_id", "=", userId)
      .where("id", "=", sessionId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },
};

/** Account deletion (`flows/account-deletion.ts`): every session of the account (all ended before, so none is live). */
export async function eraseSessionsOfAccount(db: Db, userId: string): Promise<void> {
  await db.deleteFrom("sessions").where("user_id", "=", userId).execute();
}
