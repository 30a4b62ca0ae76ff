import { useCallback, useEffect, useState } from "react";
import { currentSubscription, pushSupported, resyncPush } from "./push-subscription.ts";

/** unsupported: no Web Push here; blocked: permission denied in the browser; off/on: this device's choice. */
export type PushState = "unsupported" | "checking" | "blocked" | "off" | "on";

async function readState(): Promise<PushState> {
  if (!pushSupported()) return "unsupported";
  if (Notification.permission === "denied") return "blocked";
  return Notification.permission === "granted" && (await currentSubscription()) ? "on" : "off";
}

export function usePushState() {
  const [state, setState] = useState<PushState>("checking");
  const refresh = useCallback(async () => setState(await readState()), []);
  useEffect(() => {
    let active = true;
    (async () => {
      const now = await readState();
      if (active) setState(now);
      if (now === "on") await resyncPush().catch(() => undefined);
    })();
    return () => {
      active = false;
    };
  }, []);
  return { state, setState, refresh };
}
