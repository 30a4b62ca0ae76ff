import { useCallback, useEffect, useMemo, useSyncExternalStore } from "react";
import { useSessionServices } from "../../../lib/session-services.ts";

export type { UploadRow } from "../../../lib/upload-queue.ts";

/**
 * The signed-in user's upload queue (lib/upload-queue.ts) as the composer of one space shows and drives it:
 * only the rows of that space (a discussion, or the user's own day for null).
 */
export function useUploadQueue(options: { onBatchSent?: (files: File[]) => void; discussionId?: string | null }) {
  const queue = useSessionServices().uploads;
  const allRows = useSyncExternalStore(queue.subscribe, queue.getRows);
  const online = useSyncExternalStore(queue.subscribe, queue.getOnline);
  const { onBatchSent } = options;
  const space = options.discussionId ?? null;
  const rows = useMemo(() => allRows.filter((r) => r.discussionId === space), [allRows, space]);
  const getRows = useCallback(() => queue.getRows().filter((r) => r.discussionId === space), [queue, space]);
  const stage = useCallback((files: File[]) => queue.stage(files, space), [queue, space]);
  const sendAll = useCallback(() => queue.sendAll(space), [queue, space]);
  useEffect(() => {
    queue.onBatchSent = onBatchSent;
  }, [queue, onBatchSent]);
  return {
    rows,
    online,
    getRows,
    stage,
    sendAll,
    pause: queue.pause,
    resume: queue.resume,
    cancel: queue.cancel,
  };
}
