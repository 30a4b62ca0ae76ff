import { RequireSession } from "../features/auth/session-routes.tsx";
import { useDashboard } from "../features/dashboard/shell/dashboard-context.ts";
import { DashboardLayout } from "../features/dashboard/shell/dashboard-layout.tsx";
import { DevicesLink } from "../features/devices/devices-link.tsx";
import { useNewDeviceNotice } from "../features/devices/use-new-device-notice.ts";
import { PushBell } from "../features/push/push-bell.tsx";
import { usePendingShares, useShareOutcome } from "../features/share/use-share-outcome.ts";

/** Toasts for a device signing in elsewhere and for what the share sheet sent, now or while signed out. */
function DashboardNotices() {
  useNewDeviceNotice(useDashboard().live);
  useShareOutcome();
  usePendingShares();
  return null;
}

/** /dashboard: the signed-in frame with devices and push; a visitor is sent to sign in first. */
export function DashboardRoute() {
  return (
    <RequireSession>
      {(user) => (
        <DashboardLayout user={user} sidebarLinks={<DevicesLink />} topBarActions={<PushBell />}>
          <DashboardNotices />
        </DashboardLayout>
      )}
    </RequireSession>
  );
}
