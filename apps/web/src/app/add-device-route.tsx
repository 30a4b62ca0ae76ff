import { RequireSession } from "../features/auth/session-routes.tsx";
import { AddDevicePage } from "../features/pairing/add-device-page.tsx";

/** /pair/add: Add a device needs a signed-in device; a visitor signs in first and comes back. */
export function AddDeviceRoute() {
  return <RequireSession>{(user) => <AddDevicePage userId={user.id} />}</RequireSession>;
}
