import { LIVE_BUSY_TEXT } from "@daysync/shared";
import { useSyncExternalStore } from "react";
import { CloudOffIcon } from "../../../components/ui/icons.tsx";
import { useSessionServices } from "../../../lib/session-services.ts";
import { useLiveStatus } from "../../../lib/use-live-status.ts";

/** Always in the page, so screen readers announce when it fills. */
export function ConnectionStatus() {
  const status = useLiveStatus();
  const { outbox } = useSessionServices();
  const waiting = useSyncExternalStore(outbox.subscribe, outbox.getEntries).filter((e) => !e.error).length;
  const offline = status === "offline";
  return (
    <div className="connection-status" role="status" data-offline={offline || undefined} data-busy={status === "busy" || undefined}>
      {offline ? (
        <>
          <CloudOffIcon size={18} />
          <span>
            You’re offline — showing what this device had; messages will be sent when the connection is back
            {waiting > 0 ? ` (${waiting} waiting)` : ""}.
          </span>
        </>
      ) : status === "busy" ? (
        <span>{LIVE_BUSY_TEXT}</span>
      ) : null}
    </div>
  );
}
