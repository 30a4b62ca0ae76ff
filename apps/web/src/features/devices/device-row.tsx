import { type DeviceKind, type DeviceListItem, formatDisplayDate, formatStoredDate, formatStoredTime } from "@daysync/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { toast } from "react-toastify";
import { LaptopIcon, SmartphoneIcon, TabletIcon, TerminalIcon } from "../../components/ui/icons.tsx";
import { Spinner } from "../../components/ui/spinner.tsx";
import { ApiError } from "../../lib/api-client.ts";
import { describeError } from "../../lib/api-errors.ts";
import { devicesKey, renameDevice } from "./api/devices.ts";
import { DeviceRenameForm } from "./device-rename-form.tsx";

/** dd/MM/yyyy h:mm a, like every date and time of the app. */
const dateTime = (ms: number) => `${formatDisplayDate(formatStoredDate(new Date(ms)))} ${formatStoredTime(new Date(ms))}`;

function lastSeen(ms: number, now: number): string {
  const minutes = Math.floor((now - ms) / 60_000);
  if (minutes < 2) return "just now";
  if (minutes < 60) return `${minutes} min ago`;
  if (minutes < 24 * 60) return `${Math.floor(minutes / 60)} h ago`;
  return dateTime(ms);
}

const KINDS: Record<DeviceKind, { label: string; Icon: typeof LaptopIcon }> = {
  phone: { label: "Phone", Icon: SmartphoneIcon },
  tablet: { label: "Tablet", Icon: TabletIcon },
  computer: { label: "Computer", Icon: LaptopIcon },
  terminal: { label: "Command line", Icon: TerminalIcon },
};

/** Where the device stands with the account's key (decision 020); nothing for one that has made no key yet. */
const KEY_STATUS: Record<DeviceListItem["key_status"], string | null> = {
  can_read: "Can read your messages",
  waiting: "Waiting for approval",
  denied: "Request denied: sign in again on it to ask once more",
  none: null,
};

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** When the device was added, short enough to tell two of one model apart at a glance: "Added 3 Dec, 14:05". */
export function addedAt(ms: number): string {
  const at = new Date(ms);
  const time = `${String(at.getHours()).padStart(2, "0")}:${String(at.getMinutes()).padStart(2, "0")}`;
  const year = at.getFullYear() === new Date().getFullYear() ? "" : ` ${at.getFullYear()}`;
  return `Added ${at.getDate()} ${MONTHS[at.getMonth()]}${year}, ${time}`;
}

interface DeviceRowProps {
  device: DeviceListItem;
  /** Absent while the device is not in the signed device list (not keyed yet, or the list was refused). */
  securityCode?: string | undefined;
  now: number;
  busy: boolean;
  onSignOut: () => void;
}

/** One signed-in device: its name (renamable in place), when and where it was seen, and a two-step sign-out. */
export function DeviceRow({ device, securityCode, now, busy, onSignOut }: DeviceRowProps) {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [renaming, setRenaming] = useState(false);
  const renameButton = useRef<HTMLButtonElement>(null);
  const [wasRenaming, setWasRenaming] = useState(false);
  // Back from the name field (saved or cancelled), the keyboard carries on from the Rename button.
  useEffect(() => {
    if (renaming) setWasRenaming(true);
    else if (wasRenaming) {
      setWasRenaming(false);
      renameButton.current?.focus();
    }
  }, [renaming, wasRenaming]);
  const rename = useMutation({
    mutationFn: (name: string) => renameDevice(device.id, name),
    onSuccess: ({ device: renamed }) => {
      queryClient.setQueryData<DeviceListItem[]>(devicesKey, (old) => old?.map((d) => (d.id === renamed.id ? renamed : d)));
      setRenaming(false);
    },
    onError: (error) => {
      if (!(error instanceof ApiError && error.field === "name")) toast.error(describeError(error));
    },
  });
  const kind = KINDS[device.kind];
  const nameError = rename.error instanceof ApiError && rename.error.field === "name" ? rename.error.message : undefined;

  return (
    <li className="device-row" data-current={device.current || undefined}>
      <span className="device-icon" role="img" aria-label={kind.label} title={kind.label}>
        <kind.Icon size={22} />
      </span>
      <div className="device-text">
        {renaming ? (
          <DeviceRenameForm
            currentName={device.name}
            busy={rename.isPending}
            serverError={nameError}
            onSave={(name) => rename.mutate(name)}
            onCancel={() => {
              rename.reset();
              setRenaming(false);
            }}
          />
        ) : (
          <p className="device-name">
            {device.name}
            {device.current ? <span className="device-badge">This device</span> : null}
          </p>
        )}
        <p className="device-meta">
          {addedAt(device.signed_in_at)} · Last seen {device.current ? "now" : lastSeen(device.last_seen_at, now)} · IP {device.ip}
          {device.name.startsWith(`${device.browser} on `) ? null : ` · ${device.browser} on ${device.os}`}
        </p>
        {KEY_STATUS[device.key_status] ? (
          <p className="device-key" data-key-status={device.key_status}>
            {KEY_STATUS[device.key_status]}
          </p>
        ) : null}
        {securityCode ? (
          <p className="device-security-code">
            Security code <span data-testid="security-code">{securityCode}</span>
          </p>
        ) : null}
      </div>
      <div className="device-actions">
        {renaming ? null : (
          <button
            ref={renameButton}
            type="button"
            className="btn btn-ghost btn-sm"
            aria-label={`Rename ${device.name}${device.current ? " (this device)" : ""}`}
            onClick={() => {
              setConfirming(false);
              setRenaming(true);
            }}
          >
            Rename
          </button>
        )}
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
