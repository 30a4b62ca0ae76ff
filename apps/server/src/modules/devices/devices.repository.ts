/** Reads and ends the sessions of a user, seen as their signed-in devices. */

import type { Kysely } from "kysely";
import type { Db } from "../../db/database.ts";
import type { Database } from "../../db/schema.ts";

export interface DeviceRow {
  id: string;
  user_agent: string;
  ip: string;
  created_at: number;
  last_seen_at: number;
}

const COLUMNS = ["id", "user_agent", "ip", "created_at", "last_seen_at"] as const;

export function listDeviceRows(db: Db, userId: string): Promise<DeviceRow[]> {
  return db.selectFrom("sessions").select(COLUMNS).where("user_id", "=", userId).orderBy("last_seen_at", "desc").execute();
}

export function findDeviceRow(db: Kysely<Database>, userId: string, sessionId: string): Promise<DeviceRow | undefined> {
  return db.selectFrom("sessions").select(COLUMNS).where("user_id", "=", userId).where("id", "=", sessionId).executeTakeFirst();
}

/** Deletes the session only if it belongs to the user; true when it did. */
export async function deleteDeviceRow(db: Kysely<Database>, userId: string, sessionId: string): Promise<boolean> {
  const result = await db.deleteFrom("sessions").where("user_id", "=", userId).where("id", "=", sessionId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
