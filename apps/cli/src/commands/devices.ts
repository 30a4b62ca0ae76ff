/** `daysync devices` and `daysync devices rm ID`: the signed-in devices of the account, and signing one out. */
import { DEVICES_API, type DeviceListItem, responseSchemas } from "@daysync/shared";
import type { Context } from "../context.ts";
import { CliError, EXIT } from "../errors.ts";
import { printJson, printTable } from "../format.ts";
import { MessageKeys } from "../sealing/message-keys.ts";
import { say } from "../terminal-text.ts";

const MINUTE = 60_000;

/** "now", "5 min ago", "3 h ago", "2 days ago". */
export function ago(time: number, now: number): string {
  const minutes = Math.floor((now - time) / MINUTE);
  if (minutes < 1) return "now";
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.floor(hours / 24)} days ago`;
}

/** Where the device stands with the account's key (decision 020), as Devices on the web says it. */
const KEY_STATUS: Record<DeviceListItem["key_status"], string> = {
  can_read: "can read",
  waiting: "waiting for approval",
  denied: "denied",
  none: "-",
};

export async function listDevices(ctx: Context, options: { json?: boolean }): Promise<void> {
  const signedIn = await ctx.signedIn();
  const { devices } = await signedIn.api.get(DEVICES_API.list, responseSchemas.devices);
  // Security codes from the signed device list as this terminal verified it (the same on every device of the account).
  const keys = await MessageKeys.load(signedIn, ctx.store).catch(() => undefined);
  const codeOf = (d: DeviceListItem) => (d.key_id ? keys?.securityCode(d.key_id) : undefined);
  if (options.json) return printJson(devices.map((d) => ({ ...d, security_code: codeOf(d) ?? null })));
  const now = Date.now();
  printTable(
    ["ID", "NAME", "LAST SEEN", "IP", "KEY", "SECURITY CODE"],
    devices.map((d) => [
      d.id,
      d.current ? `${d.name} (this device)` : d.name,
      ago(d.last_seen_at, now),
      d.ip,
      KEY_STATUS[d.key_status],
      codeOf(d) ?? "-",
    ]),
  );
}

/** The device an id, or an unambiguous start of one (at least 4 characters), names. */
function findDevice(devices: DeviceListItem[], id: string): DeviceListItem {
  const wanted = id.trim().toLowerCase();
  const exact = devices.find((d) => d.id === wanted);
  if (exact) return exact;
  const matches = wanted.length >= 4 ? devices.filter((d) => d.id.startsWith(wanted)) : [];
  if (matches.length === 1 && matches[0]) return matches[0];
  if (matches.length > 1) throw new CliError(`"${id}" fits ${matches.length} devices; give more of the id.`);
  throw new CliError(`No signed-in device ${id}. See the list with: daysync devices`, EXIT.notFound);
}

export async function removeDevice(ctx: Context, id: string): Promise<void> {
  const signedIn = await ctx.signedIn();
  const { api, server } = signedIn;
  const { devices } = await api.get(DEVICES_API.list, responseSchemas.devices);
  const device = findDevice(devices, id);
  // Its key leaves with it: remembered before it goes, and this terminal makes the next epoch at once.
  const removedKeyIds = !device.current && device.key_id ? [device.key_id] : [];
  const keys = device.current ? undefined : await MessageKeys.load(signedIn, ctx.store);
  await keys?.noteRemoved(removedKeyIds);
  await api.send("DELETE", DEVICES_API.one(device.id));
  await keys?.rotateNow({ removedKeyIds });
  if (device.current) say(`Signed out this device (${device.name}). Sign in again with: daysync login ${server}`);
  else say(`Signed out ${device.name}.`);
}
