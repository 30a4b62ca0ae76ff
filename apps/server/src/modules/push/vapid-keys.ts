/**
 * The server's VAPID key pair, one for every process of an installation: kept in the database (`server_keys`),
 * made at first start. An older installation's DATA_DIR/vapid.json is taken over, so its push subscriptions keep working.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import webpush from "web-push";
import type { ServerKeysRepository } from "../server-keys/index.ts";

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

const KEY_NAME = "vapid";

const isKeys = (value: unknown): value is VapidKeys =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as VapidKeys).publicKey === "string" &&
  typeof (value as VapidKeys).privateKey === "string";

/** The pair of DATA_DIR/vapid.json, if that file exists. */
function readKeysFile(dataDir: string): VapidKeys | undefined {
  const file = path.join(dataDir, "vapid.json");
  try {
    const keys: unknown = JSON.parse(readFileSync(file, "utf8"));
    if (isKeys(keys)) return keys;
    throw new Error(`${file} does not hold a VAPID key pair; move it away to make a new one.`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

export async function loadOrCreateVapidKeys(serverKeys: ServerKeysRepository, dataDir: string, now: number): Promise<VapidKeys> {
  const stored = async () => {
    const value = await serverKeys.find(KEY_NAME);
    if (value === undefined) return undefined;
    const keys: unknown = JSON.parse(value);
    if (!isKeys(keys)) throw new Error("server_keys holds no valid VAPID key pair under 'vapid'.");
    return keys;
  };
  const existing = await stored();
  if (existing) return existing;
  const candidate = readKeysFile(dataDir) ?? webpush.generateVAPIDKeys();
  // Processes starting at once each offer a pair; the first stored one is everybody's.
  await serverKeys.insertIfAbsent(KEY_NAME, JSON.stringify(candidate), now);
  const keys = await stored();
  if (!keys) throw new Error("VAPID keys vanished from server_keys.");
  return keys;
}
