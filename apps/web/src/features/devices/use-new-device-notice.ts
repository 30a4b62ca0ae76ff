import { useEffect } from "react";
import { useNavigate } from "react-router";
import { toast } from "react-toastify";
import type { LiveConnection } from "../../lib/live-connection.ts";

/** Tells this device, as it happens, that another device was just signed in to the account. */
export function useNewDeviceNotice(live: LiveConnection): void {
  const navigate = useNavigate();
  useEffect(
    () =>
      live.onEvent((event, isLive) => {
        if (!isLive || event.kind !== "device.signed_in") return;
        toast.info(`New device signed in: ${event.device.name}. Not you? Tap here to sign it out in Devices.`, {
          onClick: () => void navigate("/dashboard/devices"),
        });
      }),
    [live, navigate],
  );
}
