/**
 * The background's hold on the extension's session: the connection kept in storage, and the account's keys held
 * with the web app's DeviceKeys (IndexedDB, as in the app), synced once at start and whenever the keys change.
 */
import { DeviceKeys } from "../../../web/src/lib/sealing/device-keys.ts";
import { forgetKeys } from "../../../web/src/lib/sealing/key-store.ts";
import { type Connection, connectApiAs, forgetConnection, loadConnection } from "../lib/connection.ts";

export interface Session {
  connection: Connection;
  keys: DeviceKeys;
}

let current: Session | undefined;

/** The session kept in storage, its keys syncing; undefined before pairing and after sign-out. */
export async function currentSession(): Promise<Session | undefined> {
  const connection = await loadConnection();
  if (!connection) {
    current?.keys.stop();
    current = undefined;
    return undefined;
  }
  if (current?.connection.token === connection.token) return current;
  current?.keys.stop();
  connectApiAs(connection);
  const keys = new DeviceKeys(connection.user_id);
  current = { connection, keys };
  void keys.refresh();
  return current;
}

/**
 * The session ended (signed out from Devices, or refused by the server): forgets its token and its keys, as the app
 * does at sign-out; `onEnded` clears what else was kept for it.
 */
export async function endSession(onEnded: () => Promise<void>): Promise<void> {
  const connection = await loadConnection();
  current?.keys.stop();
  current = undefined;
  await forgetConnection();
  if (connection) await forgetKeys(connection.user_id).catch(() => undefined);
  await onEnded();
}
