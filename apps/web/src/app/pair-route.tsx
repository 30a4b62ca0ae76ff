import { RequireSession } from "../features/auth/session-routes.tsx";
import { PairPage } from "../features/pairing/pair-page.tsx";
import { SessionServicesProvider } from "./session-services-provider.tsx";

/**
 * /pair and /pair/:code: approving a sign-in needs a signed-in device; a visitor signs in first and comes back. The
 * outbox and live connection go on while the person approves, as on /pair/add.
 */
export function PairRoute() {
  return (
    <RequireSession>
      {(user) => (
        <SessionServicesProvider user={user}>
          <PairPage userId={user.id} />
        </SessionServicesProvider>
      )}
    </RequireSession>
  );
}
