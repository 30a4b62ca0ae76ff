import type { User } from "@daysync/shared";
import { createContext, useContext } from "react";
import type { ApplyCacheChange } from "./cache-changes.ts";
import type { LiveConnection } from "./live-connection.ts";
import type { Outbox } from "./outbox.ts";
import type { DeviceKeys } from "./sealing/device-keys.ts";
import type { Rooms } from "./sealing/rooms.ts";
import type { UploadQueue } from "./upload-queue.ts";

/**
 * What one signed-in user has in this tab: the live connection, the outbox (sends and deletions), the
 * upload queue, this device's hold on the account's keys, and the one road of changes into the caches. app/session-services-provider.tsx creates them;
 * any feature reads them here, so none has to import another.
 */
export interface SessionServices {
  user: User;
  /** Shows a change wherever the app shows it, in every feature's cache (see lib/cache-changes.ts). */
  applyChange: ApplyCacheChange;
  live: LiveConnection;
  outbox: Outbox;
  uploads: UploadQueue;
  keys: DeviceKeys;
  /** This device's hold on the user's encrypted discussions (lib/sealing/rooms.ts). */
  rooms: Rooms;
}

export const SessionServicesContext = createContext<SessionServices | null>(null);

export function useSessionServices(): SessionServices {
  const value = useContext(SessionServicesContext);
  if (!value) throw new Error("useSessionServices is used outside SessionServicesProvider");
  return value;
}

/** The signed-in user; signed-in pages only render with one. */
export function useCurrentUser(): User {
  return useSessionServices().user;
}
