import { RequireSession } from "../features/auth/session-routes.tsx";
import { AddDevicePage } from "../features/pairing/add-device-page.tsx";
import { SessionServicesProvider } from "./session-services-provider.tsx";

/**
 * /pair/add: Add a device needs a signed-in device; a visitor signs in first and comes back. The outbox and live
 * connection go on here, so a message typed just before is sent while the new device is added, not after.
 */
export function AddDeviceRoute() {
  return (
    <RequireSession>
      {(user) => (
        <SessionServicesProvider user={user}>
          <AddDevicePage userId={user.id} />
        </SessionServicesProvider>
      )}
    </RequireSession>
  );
}
