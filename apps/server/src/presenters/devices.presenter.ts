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
}
