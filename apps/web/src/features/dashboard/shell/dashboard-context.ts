import type { User } from "@daysync/shared";
import { createContext, useContext } from "react";
import type { LiveConnection } from "../../../lib/live-connection.ts";
import type { Outbox } from "../../../lib/outbox.ts";

export interface DashboardServices {
  user: User;
  live: LiveConnection;
  outbox: Outbox;
}

export const DashboardContext = createContext<DashboardServices | null>(null);

export function useDashboard(): DashboardServices {
  const value = useContext(DashboardContext);
  if (!value) throw new Error("useDashboard is used outside the dashboard layout");
  return value;
}

/** The signed-in user; the dashboard only renders with one. */
export function useCurrentUser(): User {
  return useDashboard().user;
}
