import { type DeviceListItem, formatDisplayDate, formatStoredDate, formatStoredTime } from "@daysync/shared";
import { useState } from "react";
import { DevicesIcon } from "../../components/ui/icons.tsx";
import { Spinner } from "../../components/ui/spinner.tsx";

/** dd/MM/yyyy h:mm a, like every date and time of the app. */
const dateTime = (ms: number) => `${formatDisplayDate(formatStoredDate(new Date(ms)))} ${formatStoredTime(new Date(ms))}`;

function lastSeen(ms: number, now: number): string {
  const minutes = Math.floor((now - ms) / 60_000);
  if (minutes < 2) return "just now";
  if (minutes < 60) return `${minutes} min ago`;
  if (minutes < 24 * 60) return `${Math.floor(minutes / 60)} h ago`;
  return dateTime(ms);
}

interface DeviceRowProps {
  device: DeviceListItem;
  now: number;
  busy: boolean;
  onSignOut: () => void;
}

/** One signed-in device, with a two-step sign-out. */
export function DeviceRow({ device, now, busy, onSignOut }: DeviceRowProps) {
  const [confirming, setConfirming] = useState(false);
  return (
    <li className="device-row" data-current={device.current || undefined}>
      <span className="device-icon" aria-hidden="true">
        <DevicesIcon size={22} />
      </span>
      <div className="device-text">
        <p className="device-name">
          {device.name}
          {device.current ? <span className="device-badge">This device</span> : null}
        </p>
        <p className="device-meta">
          Signed in {dateTime(device.signed_in_at)} · last seen {device.current ? "now" : lastSeen(device.last_seen_at, now)} · IP{" "}
          {device.ip}
        </p>
      </div>
      <div className="device-actions">
        {confirming ? (
          <>
            <button type="button" className="btn btn-danger btn-sm" disabled={busy} onClick={onSignOut}>
              {busy ? <Spinner /> : null}
              {device.current ? "Sign out here" : "Sign it out"}
            </button>
            <button type="button" className="btn btn-ghost btn-sm" disabled={busy} onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </>
        ) : (
          <button
            type="button"
            className="btn btn-secondary btn-sm"
            aria-label={`Sign out ${device.name}${device.current ? " (this device)" : ""}`}
            onClick={() => setConfirming(true)}
          >
            Sign out
          </button>
        )}
      </div>
    </li>
  );
}
