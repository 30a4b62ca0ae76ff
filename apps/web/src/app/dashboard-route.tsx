import type { User } from "@daysync/shared";
import { AdminLink } from "../features/admin/admin-link.tsx";
import { RequireSession } from "../features/auth/session-routes.tsx";
import { DashboardLayout } from "../features/dashboard/shell/dashboard-layout.tsx";
import { DevicesLink } from "../features/devices/devices-link.tsx";
import { NameDevicePrompt } from "../features/devices/name-device-prompt.tsx";
import { useNewDeviceNotice } from "../features/devices/use-new-device-notice.ts";
import { DiscussionsSection } from "../features/discussions/discussions-section.tsx";
import { UnverifiedEmailBanner } from "../features/email-verification/unverified-email-banner.tsx";
import { KeyApproval } from "../features/keys/key-approval.tsx";
import { PushBell } from "../features/push/push-bell.tsx";
import { RecoveryCodeOffer } from "../features/settings/recovery-code-offer.tsx";
import { SettingsLink } from "../features/settings/settings-link.tsx";
import { usePendingShares, useShareOutcome } from "../features/share/use-share-outcome.ts";
import { useSessionServices } from "../lib/session-services.ts";
import { useCopyRequest, useIncomingTextToasts } from "./clipboard-notices.tsx";
import { SessionServicesProvider } from "./session-services-provider.tsx";

/**
 * Toasts for a device signing in elsewhere, for what the share sheet sent (now or while signed out), for texts
 * from the user's other devices (with Copy), and the copy a notification's Copy action asks for.
 */
function DashboardNotices() {
  const { live } = useSessionServices();
  useNewDeviceNotice(live);
  useIncomingTextToasts(live);
  useCopyRequest();
  useShareOutcome();
  usePendingShares();
  return null;
}

/**
 * /dashboard and /discussions: the signed-in frame with its live connection, outbox and upload queue, the
 * discussions in the sidebar, devices and push; a visitor is sent to sign in first and comes back here.
 */
export function DashboardRoute() {
  return <RequireSession>{(user) => <SignedInFrame user={user} />}</RequireSession>;
}

/** The frame around every signed-in page; the page is the route's child (DashboardLayout's outlet). */
export function SignedInFrame({ user }: { user: User }) {
  return (
    <SessionServicesProvider user={user}>
      <DashboardLayout
        sidebarLinks={
          <>
            <DevicesLink />
            <SettingsLink />
            <AdminLink />
          </>
        }
        sidebarSections={<DiscussionsSection headingId="sidebar-discussions" />}
        topBarActions={<PushBell />}
        notice={
          <>
            <UnverifiedEmailBanner />
            <KeyApproval />
            <NameDevicePrompt />
            <RecoveryCodeOffer />
          </>
        }
      >
        <DashboardNotices />
      </DashboardLayout>
    </SessionServicesProvider>
  );
}
