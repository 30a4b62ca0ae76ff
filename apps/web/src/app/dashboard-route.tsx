import { RequireSession } from "../features/auth/session-routes.tsx";
import { DashboardLayout } from "../features/dashboard/shell/dashboard-layout.tsx";

/** /dashboard: the signed-in frame; a visitor is sent to sign in first. */
export function DashboardRoute() {
  return <RequireSession>{(user) => <DashboardLayout user={user} />}</RequireSession>;
}
