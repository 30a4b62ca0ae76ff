import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link } from "react-router";
import { toast } from "react-toastify";
import { QrIcon } from "../../components/ui/icons.tsx";
import { Spinner } from "../../components/ui/spinner.tsx";
import { describeError } from "../../lib/api-errors.ts";
import { useNow } from "../../lib/use-now.ts";
import { DeviceRow } from "./device-row.tsx";
import { DEVICES_QUERY_KEY, devicesQueryOptions, signOutDevice } from "./devices-api.ts";
import "../../components/ui/ui.css";
import "./devices.css";

/** /dashboard/devices: every signed-in device of the user; any of them can be signed out. */
export function DevicesPage() {
  const queryClient = useQueryClient();
  const devices = useQuery(devicesQueryOptions);
  const now = useNow();
  const signOut = useMutation({
    mutationFn: (id: string) => signOutDevice(id),
    onSuccess: (_data, id) => {
      const device = devices.data?.find((d) => d.id === id);
      if (!device?.current) toast.success(`${device?.name ?? "The device"} was signed out.`);
      void queryClient.invalidateQueries({ queryKey: DEVICES_QUERY_KEY });
    },
    onError: (error) => toast.error(describeError(error)),
  });

  return (
    <div className="app-page devices-page">
      <header>
        <p className="app-page-eyebrow">Security</p>
        <h1>Devices</h1>
        <p className="muted devices-lead">Phones and computers signed in to your account. Signing one out ends its session at once.</p>
      </header>

      {devices.isPending ? <Spinner size="lg" label="Loading devices" /> : null}
      {devices.isError ? (
        <p className="devices-error" role="alert">
          {describeError(devices.error)}
        </p>
      ) : null}
      {devices.data ? (
        <ul className="device-list" aria-label="Signed-in devices">
          {devices.data.map((device) => (
            <DeviceRow
              key={device.id}
              device={device}
              now={now}
              busy={signOut.isPending && signOut.variables === device.id}
              onSignOut={() => signOut.mutate(device.id)}
            />
          ))}
        </ul>
      ) : null}

      <section className="devices-add" aria-labelledby="devices-add-title">
        <h2 id="devices-add-title">Sign in another device</h2>
        <p className="muted">
          On the new device choose “Sign in using connected device” on the sign-in page, then scan its QR code here or type its code.
        </p>
        <Link to="/pair" className="btn btn-primary">
          <QrIcon size={18} />
          Scan or type a code
        </Link>
      </section>
    </div>
  );
}
