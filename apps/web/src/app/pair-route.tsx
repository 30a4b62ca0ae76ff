import { RequireSession } from "../features/auth/session-routes.tsx";
import { PairPage } from "../features/pairing/pair-page.tsx";

/** /pair and /pair/:code: approving a sign-in needs a signed-in device; a visitor signs in first and comes back. */
export function PairRoute() {
  return <RequireSession>{(user) => <PairPage userId={user.id} />}</RequireSession>;
}
