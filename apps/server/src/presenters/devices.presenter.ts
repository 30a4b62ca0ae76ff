import type { SignedInDevice } from "@daysync/shared";
import { describeUserAgent } from "./device-name.ts";

export function presentDevice(row: DeviceRow): SignedInDevice {
  const { browser, os, name, kind } = describeUserAgent(row.user_agent);
  return {
    id: row.id,
    name: row.name ?? name,
    browser,
    os,
    kind,
    ip: row.ip,
    signed_in_at: Number(row.created_at),
    last_seen_at: Number(row.last_seen_at),
    key_status: row.key_id == null ? "none" : row.holds_current_key ? "can_read" : row.request_denied ? "denied" : "waiting",
  };
}

/** A session as the Devices list shows it. */
export interface DeviceRow {
  id: string;
  user_agent: string;
  ip: string;
  created_at: number;
  last_seen_at: number;
  /** The name the user gave it; null: named from its User-Agent. */
  name: string | null;
  /** Its public key's id; null until the device made its key pair. */
  key_id?: string | null;
  /** Holds a wrap of the account's current epoch (SQLite answers 0 or 1, PostgreSQL a boolean). */
  holds_current_key: boolean | 0 | 1;
  /** Its request to be approved was denied, and none is open since (SQLite answers 0 or 1); absent where not read. */
  request_denied?: boolean | 0 | 1;
}
