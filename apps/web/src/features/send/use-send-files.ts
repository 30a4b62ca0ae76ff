import { useCallback, useState, useSyncExternalStore } from "react";
import { useSessionServices } from "../../lib/session-services.ts";
import type { UploadRow } from "../../lib/upload-queue.ts";
import { SEND_TEXT, type SendState } from "./use-send-share.ts";

/** What the page's file status says of its rows: the first that failed, else the first still on its way. */
function stateOf(rows: readonly UploadRow[], online: boolean): SendState {
  const failed = rows.find((r) => r.status === "fail");
  if (failed)
    return { kind: "failed", text: failed.cancelled ? "Upload cancelled" : (failed.problem ?? "The upload could not be completed.") };
  const [first] = rows;
  if (!first) return { kind: "sent" };
  if (!online || rows.some((r) => r.offline)) return { kind: "waiting", text: SEND_TEXT.offline };
  // Held until this device can seal, with why ("" while its keys are being looked up).
  const held = rows.find((r) => r.waiting);
  if (held?.waiting) return { kind: "waiting", text: held.waiting };
  const percent = rows.reduce((sum, r) => sum + r.percent, 0) / rows.length;
  return { kind: "waiting", text: SEND_TEXT.sending, percent };
}

/**
 * Files chosen on /send go through the signed-in page's upload queue, sealed like the composer's; the page follows
 * its own rows, which leave the queue once the server stored them.
 */
export function useSendFiles() {
  const { uploads } = useSessionServices();
  const [sent, setSent] = useState<{ ids: readonly string[]; names: readonly string[] } | null>(null);
  const rows = useSyncExternalStore(uploads.subscribe, uploads.getRows);
  const online = useSyncExternalStore(uploads.subscribe, uploads.getOnline);

  const sendFiles = useCallback(
    (files: File[]) => {
      if (files.length) setSent({ ids: uploads.send(files), names: files.map((f) => f.name) });
    },
    [uploads],
  );

  const mine = sent ? rows.filter((r) => sent.ids.includes(r.id)) : [];
  return { sentFiles: sent?.names ?? null, fileState: sent ? stateOf(mine, online) : null, sendFiles };
}
