/** Sessions: one per signed-in device. The cookie holds a random token; only its hash is stored. */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Db } from "../../db/database.ts";

export const SESSION_LIFETIME_MS = 180 * 24 * 60 * 60 * 1000;
const TOUCH_EVERY_MS = 60_000;

export interface SessionAuth {
  sessionId: string;
  userId: string;
}

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

export function createSessionsRepository(db: Db) {
  /** Marks the session seen now, at most once a minute: devices ping far more often than that. */
  async function touch(sessionId: string, now: number): Promise<void> {
    await db
      .updateTable("sessions")
      .set({ last_seen_at: now })
      .where("id", "=", sessionId)
      .where("last_seen_at", "<", now - TOUCH_EVERY_MS)
      .execute();
  }

  return {
    touch,

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
      return { id, token };
    },

    /** The session of a cookie token, if it is still valid; refreshes last-seen at most once a minute. */
    async authenticate(token: string, now: number): Promise<SessionAuth | undefined> {
      const row = await db
        .selectFrom("sessions")
        .select(["id", "user_id", "last_seen_at"])
        .where("token_hash", "=", hashToken(token))
        .executeTakeFirst();
      if (!row) return undefined;
      const lastSeen = Number(row.last_seen_at);
      if (now - lastSeen > SESSION_LIFETIME_MS) {
        await db.deleteFrom("sessions").where("id", "=", row.id).execute();
        return undefined;
      }
      await touch(row.id, now);
      return { sessionId: row.id, userId: row.user_id };
    },

    async remove(sessionId: string): Promise<void> {
      await db.deleteFrom("sessions").where("id", "=", sessionId).execute();
    },
  };
}

export type SessionsRepository = ReturnType<typeof createSessionsRepository>;
