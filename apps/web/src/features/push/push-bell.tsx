import { TEXT } from "@daysync/shared";
import { useState } from "react";
import { toast } from "react-toastify";
import { BellIcon, BellOffIcon } from "../../components/ui/icons.tsx";
import { describeError } from "../../lib/api-errors.ts";
import { disablePush, enablePush, NotificationsDeniedError } from "./push-subscription.ts";
import { usePushState } from "./use-push-state.ts";
import "../../components/ui/icon-button.css";
import "./push-bell.css";

const LABELS = {
  unsupported: "Notifications are not supported in this browser",
  checking: "Notifications",
  blocked: "Notifications are blocked for Daysync in this browser",
  off: "Turn on notifications for new messages",
  on: "Turn off notifications on this device",
} as const;

/** The top bar's bell: asks for notification permission only when clicked. */
export function PushBell() {
  const { state, setState, refresh } = usePushState();
  const [working, setWorking] = useState(false);

  const onClick = async () => {
    if (state === "unsupported") return void toast.info(LABELS.unsupported);
    if (state === "blocked") return void toast.error(TEXT.notificationDenied);
    setWorking(true);
    try {
      if (state === "on") {
        await disablePush();
        setState("off");
        toast.info("Notifications are off on this device.");
      } else {
        await enablePush();
        setState("on");
        toast.success("Notifications are on: new messages from your other devices will show here.");
      }
    } catch (error) {
      if (error instanceof NotificationsDeniedError) toast.error(TEXT.notificationDenied);
      else toast.error(error instanceof DOMException ? "This browser could not subscribe to notifications." : describeError(error));
      await refresh();
    } finally {
      setWorking(false);
    }
  };

  const on = state === "on";
  return (
    <button
      type="button"
      className="icon-button topbar-bell"
      aria-label={LABELS[state]}
      title={LABELS[state]}
      aria-pressed={state === "on" || state === "off" ? on : undefined}
      disabled={working || state === "checking"}
      data-state={state}
      onClick={() => void onClick()}
    >
      {on ? <BellIcon size={20} /> : <BellOffIcon size={20} />}
    </button>
  );
}
