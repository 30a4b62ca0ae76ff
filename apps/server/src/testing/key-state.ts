/** Reading an account's key state in server tests of decision 020: through the API as a device sees it, and its rows. */
import { DEVICES_API, type DevicesResponse, KEYS_API, type KeysState } from "@daysync/shared";
import { expect } from "vitest";
import { Device, type TestServer } from "./test-server.ts";

/** Another signed-in device of the account. */
export async function secondDevice(server: Pick<TestServer, "url">, email: string) {
  const device = new Device(server.url);
  await device.login(email);
  return device;
}

/** The roster in a fixed order: rows added together come in the database's collation of their key ids. */
export const byKey = <T extends { epoch: number; key_id: string }>(rows: T[]) =>
  [...rows].sort((a, b) => a.epoch - b.epoch || (a.key_id < b.key_id ? -1 : 1));

/** GET /api/keys as the device sees it, its roster in `byKey` order. */
export const stateOf = async (device: Device) => {
  const res = await device.get<KeysState>(KEYS_API.keys);
  expect(res.status).toBe(200);
  return { ...res.body, roster: byKey(res.body.roster) };
};

/** The device's own session id, as Devices lists it. */
export const sessionIdOf = async (device: Device) =>
  (await device.get<DevicesResponse>(DEVICES_API.list)).body.devices.find((d) => d.current)?.id ?? "";

/** The account's epochs, wraps and roster rows as stored. */
export const keyRowsOf = async (server: Pick<TestServer, "db">, userId: string) => ({
  epochs: await server.db.selectFrom("key_epochs").selectAll().where("user_id", "=", userId).execute(),
  wraps: await server.db.selectFrom("key_wraps").selectAll().where("user_id", "=", userId).execute(),
  roster: await server.db.selectFrom("key_roster").selectAll().where("user_id", "=", userId).execute(),
});
