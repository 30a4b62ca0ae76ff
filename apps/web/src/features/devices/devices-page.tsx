import { ADD_DEVICE_ROUTE } from "@daysync/shared";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, useSyncExternalStore } from "react";
import { Link } from "react-router";
import { toast } from "react-toastify";
import { QrIcon } from "../../components/ui/icons.tsx";
import { Spinner } from "../../components/ui/spinner.tsx";
import { describeError } from "../../lib/api-errors.ts";
import { securityCodeOf } from "../../lib/sealing/security-codes.ts";
import { useSessionServices } from "../../lib/session-services.ts";
import { useNow } from "../../lib/use-now.ts";
import { devicesQueryOptions, reloadDevices, signOutDevice, signOutOtherDevices } from "./api/devices.ts";
import { DeviceRow } from "./device-row.tsx";
import "../../components/ui/ui.css";
import "./devices.css";

/** /dashboard/devices: every signed-in device of the user (this one first); any can be renamed or signed out, or all others at once. */
export function DevicesPage() {
  const queryClient = useQueryClient();
  const devices = useQuery(devicesQueryOptions);
  const now = useNow();
  const { keys } = useSessionServices();
  const keyStatus = useSyncExternalStore(keys.subscribe, keys.getStatus);
  const list = keys.deviceList();
  const listProblem = "listProblem" in keyStatus ? keyStatus.listProblem : undefined;
  // The codes come from the list as this device verified it: read it again on opening Devices.
  useEffect(() => {
    void keys.refresh();
  }, [keys]);
  const signOut = useMutation({
    mutationFn: async (id: string) => {
      const keyId = devices.data?.find((d) => d.id === id && !d.current)?.key_id;
      if (keyId) await keys.noteRemoved([keyId]);
      return signOutDevice(id);
    },
    onSuccess: (_data, id) => {
      const device = devices.data?.find((d) => d.id === id);
      if (!device?.current) toast.success(`${device?.name ?? "The device"} was signed out.`);
      // Its key leaves with it: this device makes the next epoch now, never wrapping it for that key again.
      if (device && !device.current) void keys.rotateNow({ removedKeyIds: device.key_id ? [device.key_id] : [] });
      reloadDevices(queryClient);
    },
    onError: (error) => toast.error(describeError(error)),
  });
  const [confirmingAll, setConfirmingAll] = useState(false);
  const signOutOthers = useMutation({
    mutationFn: async () => {
      await keys.noteRemoved((devices.data ?? []).flatMap((d) => (!d.current && d.key_id ? [d.key_id] : [])));
      return signOutOtherDevices();
    },
    onSuccess: ({ signed_out }) => {
      setConfirmingAll(false);
      const removedKeyIds = (devices.data ?? []).flatMap((d) => (!d.current && d.key_id ? [d.key_id] : []));
      void keys.rotateNow({ removedKeyIds, keepOnly: "self" });
      toast.success(signed_out === 1 ? "1 other device was signed out." : `${signed_out} other devices were signed out.`);
      reloadDevices(queryClient);
    },
    onError: (error) => toast.error(describeError(error)),
  });
  const otherCount = devices.data?.filter((d) => !d.current).length ?? 0;

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
      {listProblem ? (
        <p className="devices-error" role="alert">
          {listProblem}
        </p>
      ) : null}
      {devices.data ? (
        <ul className="device-list" aria-label="Signed-in devices">
          {devices.data.map((device) => (
            <DeviceRow
              key={device.id}
              device={device}
              securityCode={securityCodeOf(list, device.key_id)}
              now={now}
              busy={signOut.isPending && signOut.variables === device.id}
              onSignOut={() => signOut.mutate(device.id)}
            />
          ))}
        </ul>
      ) : null}

      {otherCount > 0 ? (
        <section className="devices-others" aria-labelledby="devices-others-title">
          <h2 id="devices-others-title" className="visually-hidden">
            Other devices
          </h2>
          {confirmingAll ? (
            <>
              <p className="devices-confirm" role="alert">
                Sign out {otherCount === 1 ? "the other device" : `all ${otherCount} other devices`}? Only this one stays signed in.
              </p>
              <div className="device-actions">
                <button
                  type="button"
                  className="btn btn-danger btn-sm"
                  disabled={signOutOthers.isPending}
                  onClick={() => signOutOthers.mutate()}
                >
                  {signOutOthers.isPending ? <Spinner /> : null}
                  Yes, sign them out
                </button>
                <button
                  type="button"
                  className="btn btn-ghost btn-sm"
                  disabled={signOutOthers.isPending}
                  onClick={() => setConfirmingAll(false)}
                >
                  Cancel
                </button>
              </div>
            </>
          ) : (
            <button type="button" className="btn btn-secondary" onClick={() => setConfirmingAll(true)}>
              Sign out all other devices
            </button>
          )}
        </section>
      ) : null}

      <section className="devices-add" aria-labelledby="devices-add-title">
        <h2 id="devices-add-title">Sign in another device</h2>
        <p className="muted">
          Add a device shows a code here for the new device's camera. Or, if the new device shows a code (“Sign in using connected device”
          on its sign-in page), scan or type it here.
        </p>
        <Link to={ADD_DEVICE_ROUTE} className="btn btn-primary">
          <QrIcon size={18} />
          Add a device
        </Link>
        <Link to="/pair" className="btn btn-primary">
          <QrIcon size={18} />
          Scan or type a code
        </Link>
      </section>
    </div>
  );
}
