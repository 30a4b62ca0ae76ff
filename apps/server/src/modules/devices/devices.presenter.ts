import type { SignedInDevice } from "@daysync/shared";
import { describeUserAgent } from "./device-name.ts";
import type { DeviceRow } from "./devices.repository.ts";

export function presentDevice(row: DeviceRow): SignedInDevice {
  const { browser, os, name } = describeUserAgent(row.user_agent);
  return {
    id: row.id,
    name: row.name ?? name,
    browser,
    os,
    ip: row.ip,
    signed_in_at: Number(row.created_at),
    last_seen_at: Number(row.last_seen_at),
  };
}
