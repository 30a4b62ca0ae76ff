/**
 * Start over on a locked device (docs/protocol/encryption.md, "Locked devices and Start over"; decision 021), and the
 * notice the devices that hold the key see while a locked device asks for it. With no other device holding the key,
 * Start over is offered at once; while one does, the locked device may ask to start over in 24 hours: every device is
 * told, one that holds the key can cancel, and after the 24 hours this device may start over. While a recovery code is
 * set, the code is the way back.
 */
import { DEVICES_API, KEYS_API, type KeysState, keysStateSchema, responseSchemas, START_OVER_TEXT } from "@daysync/shared";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { toast } from "react-toastify";
import { api } from "../../lib/api-client.ts";
import { describeError } from "../../lib/api-errors.ts";
import { keysStateQuery } from "../../lib/keys-state.ts";
import type { DeviceKeys } from "../../lib/sealing/device-keys.ts";

const when = (at: number) => new Date(at).toLocaleString([], { dateStyle: "medium", timeStyle: "short" });

/** Asks to start over in 24 hours, or withdraws that request: the key state after it. */
const askToStartOver = () => api.post(KEYS_API.startOver, undefined, keysStateSchema);
const cancelStartOver = () => api.delete(KEYS_API.startOver, keysStateSchema);

/** On the locked device, below the code to type and the recovery code. */
export function StartOver({ keys }: { keys: DeviceKeys }) {
  // Read again by app/ whenever a change of keys, devices or a request to start over is heard (api/keys-cache.ts).
  const state = useQuery(keysStateQuery);
  const queryClient = useQueryClient();
  const data = state.data;
  if (!data) return null;
  const settle = (next: KeysState) => queryClient.setQueryData(keysStateQuery.queryKey, next);
  if (data.recovery) {
    return data.other_devices_with_current_key === 0 ? <p className="key-approval-muted">{START_OVER_TEXT.recoveryIsTheWay}</p> : null;
  }
  const waited = data.start_over?.by_this_device === true && Date.now() >= data.start_over.available_at;
  if (data.other_devices_with_current_key === 0 || waited) return <StartOverNow keys={keys} refetch={() => void state.refetch()} />;
  if (data.start_over?.by_this_device) {
    return (
      <>
        <KeyHolders />
        <p role="status">{START_OVER_TEXT.asked(when(data.start_over.available_at))}</p>
        <div className="key-approval-actions">
          <Action label="Withdraw the request" run={cancelStartOver} settle={settle} />
        </div>
      </>
    );
  }
  return (
    <>
      <KeyHolders />
      <p className="key-approval-muted">{START_OVER_TEXT.askOffer}</p>
      <div className="key-approval-actions">
        <Action label="Start over in 24 hours" run={askToStartOver} settle={settle} />
      </div>
    </>
  );
}

/** Which of the account's devices can read, and when each was last seen: where to type the code, or what was lost. */
function KeyHolders() {
  const devices = useQuery({
    queryKey: ["key-holders"],
    queryFn: async ({ signal }) => (await api.get(DEVICES_API.list, responseSchemas.devices, signal)).devices,
  });
  const holders = (devices.data ?? []).filter((device) => device.key_status === "can_read");
  return holders.map((device) => (
    <p key={device.id} className="key-approval-muted">
      {START_OVER_TEXT.holder(device.name, when(device.last_seen_at))}
    </p>
  ));
}

/** A button that calls the server, says a refusal, and puts the answer in the key state. */
function Action({ label, run, settle }: { label: string; run: () => Promise<KeysState>; settle: (next: KeysState) => void }) {
  const [busy, setBusy] = useState(false);
  const act = async () => {
    setBusy(true);
    try {
      settle(await run());
    } catch (failure) {
      toast.error(describeError(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <button type="button" className="btn btn-ghost btn-sm" disabled={busy} onClick={() => void act()}>
      {label}
    </button>
  );
}

/** Start over at once, its cost said before it is pressed. */
function StartOverNow({ keys, refetch }: { keys: DeviceKeys; refetch: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const startOver = async () => {
    setBusy(true);
    const answer = await keys.startOver().catch((failure: unknown) => ({ ok: false as const, code: describeError(failure) }));
    setBusy(false);
    setConfirming(false);
    if (!answer.ok) {
      toast.error(answer.code === "key_recovery_code_set" ? START_OVER_TEXT.recoveryInstead : START_OVER_TEXT.stillHeld);
      refetch();
    }
  };
  if (!confirming) {
    return (
      <>
        <p className="key-approval-muted">{START_OVER_TEXT.consequences}</p>
        <div className="key-approval-actions">
          <button type="button" className="btn btn-ghost btn-sm" onClick={() => setConfirming(true)}>
            Start over
          </button>
        </div>
      </>
    );
  }
  return (
    <div role="alertdialog" aria-label="Start over" aria-describedby="start-over-text">
      <p id="start-over-text">{START_OVER_TEXT.confirm}</p>
      <div className="key-approval-actions">
        <button type="button" className="btn btn-danger btn-sm" disabled={busy} onClick={() => void startOver()}>
          Yes, start over
        </button>
        <button type="button" className="btn btn-ghost btn-sm" disabled={busy} onClick={() => setConfirming(false)}>
          Cancel
        </button>
      </div>
    </div>
  );
}

/** On a device that holds the key, while another device's request to start over stands: what it means, and Cancel. */
export function StartOverRequested() {
  const titleId = useId();
  const state = useQuery(keysStateQuery);
  const queryClient = useQueryClient();
  const request = state.data?.start_over;
  if (!request || request.by_this_device) return null;
  return (
    <section className="key-approval" aria-labelledby={titleId}>
      <h2 id={titleId}>Start over requested</h2>
      <p>{START_OVER_TEXT.requested(when(request.requested_at))}</p>
      <div className="key-approval-actions">
        <Action
          label="Cancel start over"
          run={cancelStartOver}
          settle={(next) => queryClient.setQueryData(keysStateQuery.queryKey, next)}
        />
      </div>
    </section>
  );
}
