/** Reads, renames and ends the sessions of a user, seen as their signed-in devices. */
import { expressionBuilder, sql, type Transaction } from "kysely";
import type { Db } from "../../db/database.ts";
import type { Database } from "../../db/schema.ts";
import type { DeviceRow } from "../../presenters/devices.presenter.ts";
import { deleteWrapsOfSession, holdsCurrentKey, type KeyStateRows } from "../keys/index.ts";

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

/**
 * Over the database, or over a transaction (`.in(trx)`) for work that must commit together. `accountRows` marks a
 * rotation due on the user's row, the accounts module's (above this one), handed in by the composition root.
 */
export function createDevicesRepository(db: Db, accountRows: Pick<KeyStateRows, "markRotationDue">) {
  return {
    in: (trx: Transaction<Database>) => createDevicesRepository(trx, accountRows),

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
     * Deletes the key wraps the user's session held, before the session itself goes: the epoch now due for rotation if
     * it held the current one.
     */
    async dropKeysOfSession(userId: string, sessionId: string, now: number): Promise<{ rotationDue: number | null }> {
      return deleteWrapsOfSession(db, accountRows, userId, sessionId, now);
    },
  };
}

export type DevicesRepository = ReturnType<typeof createDevicesRepository>;
