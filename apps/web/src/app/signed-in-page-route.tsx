import type { ComponentType } from "react";
import { RequireSession } from "../features/auth/session-routes.tsx";
import { SessionServicesProvider } from "./session-services-provider.tsx";

/**
 * A page that needs a signed-in device (/pair/add, /pair): a visitor signs in first and comes back. The outbox and
 * live connection go on here, so a message typed just before is sent while the person adds or approves a device.
 */
export function SignedInPageRoute({ page: Page }: { page: ComponentType<{ userId: string }> }) {
  return (
    <RequireSession>
      {(user) => (
        <SessionServicesProvider user={user}>
          <Page userId={user.id} />
        </SessionServicesProvider>
      )}
    </RequireSession>
  );
}
