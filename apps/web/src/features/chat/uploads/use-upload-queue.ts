import { useEffect, useSyncExternalStore } from "react";
import { useSessionServices } from "../../../lib/session-services.ts";

export type { UploadRow } from "../../../lib/upload-queue.ts";

/** The signed-in user's upload queue (lib/upload-queue.ts) as the composer shows and drives it. */
export function useUploadQueue(options: { onUploaded?: (file: File) => void }) {
  const queue = useSessionServices().uploads;
  const rows = useSyncExternalStore(queue.subscribe, queue.getRows);
  const { onUploaded } = options;
  useEffect(() => {
    queue.onUploaded = onUploaded;
  }, [queue, onUploaded]);
  useEffect(() => {
    window.addEventListener("online", queue.resumeOffline);
    return () => window.removeEventListener("online", queue.resumeOffline);
  }, [queue]);
  return {
    rows,
    getRows: queue.getRows,
    stage: queue.stage,
    sendAll: queue.sendAll,
    pause: queue.pause,
    resume: queue.resume,
    cancel: queue.cancel,
  };
}
