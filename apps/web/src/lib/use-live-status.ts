import { useSyncExternalStore } from "react";
import type { LiveStatus } from "./live-connection.ts";
import { useSessionServices } from "./session-services.ts";

export function useLiveStatus(): LiveStatus {
  const { live } = useSessionServices();
  return useSyncExternalStore(live.subscribe, live.getStatus);
}
