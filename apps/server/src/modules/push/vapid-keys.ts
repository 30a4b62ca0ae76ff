/** The server's VAPID key pair: made at first start and kept in DATA_DIR/vapid.json (readable by the server only). */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import webpush from "web-push";

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

const isKeys = (value: unknown): value is VapidKeys =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as VapidKeys).publicKey === "string" &&
  typeof (value as VapidKeys).privateKey === "string";

export function loadOrCreateVapidKeys(dataDir: string): VapidKeys {
  const file = path.join(dataDir, "vapid.json");
  try {
    const keys: unknown = JSON.parse(readFileSync(file, "utf8"));
    if (isKeys(keys)) return keys;
    throw new Error(`${file} does not hold a VAPID key pair; move it away to make a new one.`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const keys = webpush.generateVAPIDKeys();
  try {
    // "wx": when two processes start at once, the second keeps the first one's keys.
    writeFileSync(file, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600, flag: "wx" });
    return keys;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return loadOrCreateVapidKeys(dataDir);
  }
}
