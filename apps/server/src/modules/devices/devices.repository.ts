/** Reads, renames and ends the sessions of a user, seen as their signed-in devices. */
import { expressionBuilder, sql, type Transaction } from "kysely";
import type { Db } from "../../db/database.ts";
import type { Database } from "../../db/schema.ts";
import type { DeviceRow } from "../../presenters/devices.presenter.ts";
import { deleteWrapsOfSession, holdsCurrentKey } from "../keys/index.ts";

const COLUMNS = ["id", "user_agent", "ip", "created_at", "last_seen_at", "name", "key_id"] as const;

/**
 * Whether the session's request to be approved was denied and it has asked for none since (no request open): such a
 * device is shown as denied, not as waiting.
 */
function deniedRequest() {
  const eb = expressionBuilder<Database, "sessions">();
  const requestsOfSession = () =>
    eb.selectFrom("key_requests").select(sql<number>`1`.as("one")).whereRef("key_requests.session_id", "=", "sessions.id");
  return eb
    .and([
      eb.exists(requestsOfSession().where("key_requests.status", "=", "denied")),
      eb.not(eb.exists(requestsOfSession().where("key_requests.status", "in", ["pending", "answered", "confirmed"]))),
    ])
    .as("request_denied");
}

/** Over the database, or over a transaction (`.in(trx)`) for work that must commit together. */
export function createDevicesRepository(db: Db) {
  return {
    in: (trx: Transaction<Database>) => createDevicesRepository(trx),

    /** The user's devices, most recently seen first. */
    list(userId: string): Promise<DeviceRow[]> {
      return db
        .selectFrom("sessions")
        .select(COLUMNS)
        .select((eb) => holdsCurrentKey(eb.ref("sessions.user_id"), eb.ref("sessions.key_id")))
        .select(deniedRequest())
        .where("user_id", "=", userId)
        .orderBy("last_seen_at", "desc")
        .orderBy("created_at", "desc")
        .execute();
    },

    find(userId: string, sessionId: string): Promise<DeviceRow | undefined> {
      return db
        .selectFrom("sessions")
        .select(COLUMNS)
        .select((eb) => holdsCurrentKey(eb.ref("sessions.user_id"), eb.ref("sessions.key_id")))
        .select(deniedRequest())
        .where("user_id", "=", userId)
        .where("id", "=", sessionId)
        .executeTakeFirst();
    },

    /**
     * Deletes the session and the key wraps it held, only if it belongs to the user: whether it did, and the epoch now
     * due for rotation if the session held the current one.
     */
    async remove(userId: string, sessionId: string, now: number): Promise<{ removed: boolean; rotationDue: number | null }> {
      const { rotationDue } = await deleteWrapsOfSession(db, userId, sessionId, now);
      const result = await db.deleteFrom("sessions").where("user_id", "=", userId).where("id", "=", sessionId).executeTakeFirst();
      return { removed: Number(result.numDeletedRows) > 0, rotationDue };
    },

    /** Names the user's device; false when the user has no such device. */
    async rename(userId: string, sessionId: string, name: string): Promise<boolean> {
      const result = await db
        .updateTable("sessions")
        .set({ name })
        .where("user_id", "=", userId)
        .where("id", "=", sessionId)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
  };
}

export type DevicesRepository = ReturnType<typeof createDevicesRepository>;
