/**
 * The extension's live connection (/api/live, the token as its subprotocol, client-kind.ts) through the shared live
 * client: a message from another device counts as unread and is handed on; a key change syncs the keys; the server
 * ending the session (signed out from Devices) ends it here at once.
 */
import { LiveClient } from "@daysync/live-client";
import { API, DEVICES_API, liveProtocolsWithToken, type Message, responseSchemas } from "@daysync/shared";
import { api } from "../../../web/src/lib/api-client.ts";
import { socketUrl } from "../lib/connection.ts";
import type { Session } from "./extension-session.ts";

export interface LiveCallbacks {
  /**
   * A message of the user's days, stored just now or while this browser was away (`news`; false for what a first
   * connection replays, which was there before); `mine`: sent from this browser.
   */
  onMessage(message: Message, info: { mine: boolean; news: boolean }): Promise<void>;
  onSignedOut(): Promise<void>;
  /** Current again (connected, or back after a loss): what waits to be sent can go. */
  onReady(): void;
}

const POSITION = "live-position";

let followed: { token: string; client: LiveClient } | undefined;

/** Follows `session` live (once per session: a second call for the same one does nothing). */
export async function followLive(session: Session, callbacks: LiveCallbacks): Promise<void> {
  const { server, token } = session.connection;
  if (followed?.token === token) return;
  followed?.client.stop();
  const own = await ownSessionId().catch(() => undefined);
  // Kept across the worker's restarts, so what came while it slept is news; a first connection's replay is not.
  const stored = (await chrome.storage.local.get(POSITION))[POSITION];
  let position = typeof stored === "number" && Number.isInteger(stored) && stored > 0 ? stored : 0;
  const resumedFrom = position;
  const client = new LiveClient({
    openSocket: () => new WebSocket(socketUrl(server, API.live), liveProtocolsWithToken(token)),
    position: {
      get: () => position,
      set: (seq) => {
        position = seq;
        void chrome.storage.local.set({ [POSITION]: seq });
      },
    },
    handlers: {
      onEvent: async (event, { live }) => {
        if (event.kind === "message.created")
          await callbacks.onMessage(event.message, { mine: event.message.device?.id === own, news: live || resumedFrom > 0 });
        else if (event.kind === "device.signed_out" && event.id === own) await endLive(callbacks);
        else if (event.kind.startsWith("key.")) await session.keys.refresh();
      },
      onReady: () => callbacks.onReady(),
      onSignedOut: () => void endLive(callbacks),
      onError: () => {},
    },
  });
  followed = { token, client };
  client.start();
}

async function endLive(callbacks: LiveCallbacks): Promise<void> {
  stopLive();
  await callbacks.onSignedOut();
}

export function stopLive(): void {
  followed?.client.stop();
  followed = undefined;
  void chrome.storage.local.remove(POSITION);
}

/** This browser's session id, to tell its own messages from the other devices'. */
async function ownSessionId(): Promise<string | undefined> {
  const { devices } = await api.get(DEVICES_API.list, responseSchemas.devices);
  return devices.find((device) => device.current)?.id;
}
