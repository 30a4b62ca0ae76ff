/**
 * The extension's session with its server, kept in `chrome.storage.local` (read through a zod schema): which server,
 * which account, and the session token it holds itself (client-kind.ts). `connectApiAs` points the web app's API
 * client, whose sealing modules the extension reuses, at that server with the token.
 */
import { BROWSER_EXTENSION, CLIENT_HEADER } from "@daysync/shared";
import { z } from "zod";
import { pointApiAt } from "../../../web/src/lib/api-client.ts";

const KEY = "connection";

const connectionSchema = z.object({
  server: z.url(),
  token: z.string().min(20),
  user_id: z.string().min(1),
});
export type Connection = z.infer<typeof connectionSchema>;

export async function loadConnection(): Promise<Connection | undefined> {
  const stored = await chrome.storage.local.get(KEY);
  const parsed = connectionSchema.safeParse(stored[KEY]);
  return parsed.success ? parsed.data : undefined;
}

export async function saveConnection(connection: Connection): Promise<void> {
  await chrome.storage.local.set({ [KEY]: connectionSchema.parse(connection) });
}

/** Forgets the session (signed out, from here or from another device); the keys go with it (`forgetKeys`). */
export async function forgetConnection(): Promise<void> {
  await chrome.storage.local.remove(KEY);
}

/** Calls the server as the extension, before pairing (no token yet) or as its own session. */
export function connectApi(server: string, token?: string): void {
  pointApiAt(server, { [CLIENT_HEADER]: BROWSER_EXTENSION, ...(token ? { Authorization: `Bearer ${token}` } : {}) });
}

export const connectApiAs = (connection: Connection): void => connectApi(connection.server, connection.token);

/** The WebSocket address of `path` on the server. */
export const socketUrl = (server: string, path: string): string => server.replace(/^http/, "ws") + path;
