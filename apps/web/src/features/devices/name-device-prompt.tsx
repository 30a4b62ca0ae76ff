import { type DeviceListItem, renameDeviceSchema } from "@daysync/shared";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState, useSyncExternalStore } from "react";
import { Spinner } from "../../components/ui/spinner.tsx";
import { TextField } from "../../components/ui/text-field.tsx";
import { ApiError } from "../../lib/api-client.ts";
import { describeError } from "../../lib/api-errors.ts";
import { endDeviceNameOffer, isDeviceNameOffered } from "../../lib/session.ts";
import { useCurrentUser, useSessionServices } from "../../lib/session-services.ts";
import { devicesKey, devicesQueryOptions, renameDevice } from "./api/devices.ts";
import "./devices.css";

/** A name a person would give this device, from what its browser says: "iPhone", "Android phone", "Windows PC"… */
export function guessDeviceName(device: Pick<DeviceListItem, "kind" | "os" | "name">): string {
  const os = device.os.toLowerCase();
  if (device.kind === "phone") return os.startsWith("ios") ? "iPhone" : os.startsWith("android") ? "Android phone" : "Phone";
  if (device.kind === "tablet")
    return os.startsWith("ios") || os.startsWith("ipados") ? "iPad" : os.startsWith("android") ? "Android tablet" : "Tablet";
  if (device.kind === "computer") {
    if (os.startsWith("macos")) return "Mac";
    if (os.startsWith("windows")) return "Windows PC";
    if (os.startsWith("chrome os")) return "Chromebook";
    if (os.startsWith("linux")) return "Linux computer";
  }
  return device.name;
}

/**
 * Right after this device signs in to an account: "Name this device", the name field filled with a guess. Saving
 * renames it (as Devices does); Skip keeps the name made from the browser. Offered once; never takes the focus.
 * It waits until the device knows where its keys stand: the notice that may come of it (locked, approve this
 * device) goes above the prompt, and coming after it would move Save and Skip from under a finger.
 */
export function NameDevicePrompt() {
  const user = useCurrentUser();
  const { keys } = useSessionServices();
  const keyState = useSyncExternalStore(keys.subscribe, keys.getStatus).state;
  const [open, setOpen] = useState(() => isDeviceNameOffered(user.id));
  if (!open || keyState === "starting") return null;
  const close = () => {
    endDeviceNameOffer();
    setOpen(false);
  };
  return <NameDeviceForm onDone={close} />;
}

function NameDeviceForm({ onDone }: { onDone: () => void }) {
  const queryClient = useQueryClient();
  const devices = useQuery(devicesQueryOptions);
  const current = devices.data?.find((d) => d.current);
  const titleId = useId();
  const [name, setName] = useState<string | null>(null);
  const [error, setError] = useState<string>();
  const rename = useMutation({
    mutationFn: ({ id, name }: { id: string; name: string }) => renameDevice(id, name),
    onSuccess: ({ device }) => {
      queryClient.setQueryData<DeviceListItem[]>(devicesKey, (old) => old?.map((d) => (d.id === device.id ? device : d)));
      onDone();
    },
    onError: (failure) => setError(failure instanceof ApiError && failure.field === "name" ? failure.message : describeError(failure)),
  });
  if (!current) return null;
  const value = name ?? guessDeviceName(current);

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!current) return;
    const parsed = renameDeviceSchema.safeParse({ name: value });
    if (!parsed.success) return setError(parsed.error.issues[0]?.message);
    if (parsed.data.name === current.name) return onDone();
    rename.mutate({ id: current.id, name: parsed.data.name });
  }

  return (
    <section className="name-device" aria-labelledby={titleId}>
      <form className="name-device-form" onSubmit={submit} noValidate>
        <div className="name-device-text">
          <h2 id={titleId}>Name this device</h2>
          <p>Your messages show which device sent them. You can change the name later in Devices.</p>
        </div>
        <TextField
          label="Device name"
          value={value}
          autoComplete="off"
          error={error}
          onChange={(event) => {
            setName(event.target.value);
            setError(undefined);
          }}
        />
        <div className="name-device-actions">
          <button type="submit" className="btn btn-primary btn-sm" disabled={rename.isPending}>
            {rename.isPending ? <Spinner /> : null}
            Save name
          </button>
          <button type="button" className="btn btn-ghost btn-sm" disabled={rename.isPending} onClick={onDone}>
            Skip
          </button>
        </div>
      </form>
    </section>
  );
}
