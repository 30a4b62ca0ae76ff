import { useSyncExternalStore } from "react";
import type { LiveStatus } from "../../../lib/live-connection.ts";
import { useDashboard } from "./dashboard-context.ts";

export function useLiveStatus(): LiveStatus {
  const { live } = useDashboard();
  return useSyncExternalStore(live.subscribe, live.getStatus);
}
