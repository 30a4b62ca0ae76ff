import { UPLOAD_TEXT } from "@daysync/shared";
import type { UploadRow } from "./use-upload-queue.ts";

/** Said of a file that cannot go yet because the browser has no network. */
const WHEN_BACK = "offline, it will be sent when the connection is back";

function textOf(row: UploadRow, online: boolean): string {
  if (row.status === "fail") return row.cancelled ? UPLOAD_TEXT.cancelled : UPLOAD_TEXT.failed;
  if (row.status === "uploading") return UPLOAD_TEXT.uploading(row.percent);
  if (row.status === "pause") return UPLOAD_TEXT.paused;
  if (row.status === "success") return UPLOAD_TEXT.success;
  if (!online) return `${row.queued ? "Waiting" : "Ready to send"} · ${WHEN_BACK}`;
  return row.queued ? "Waiting to upload" : "Ready to send";
}

/** The spec's status line of one upload, with a progress bar while it runs. */
export function UploadStatusLine({ row, online }: { row: UploadRow; online: boolean }) {
  const state = row.status === "fail" && row.cancelled ? "cancelled" : row.status;
  return (
    <div className="upload-status" data-status={state}>
      <p role="status" aria-live="polite" className="upload-status-text">
        {textOf(row, online)}
        {row.problem ? <span className="upload-problem"> {row.problem}</span> : null}
        {row.waiting ? <span className="upload-waiting"> · {row.waiting}</span> : null}
      </p>
      {row.status === "uploading" || row.status === "pause" ? (
        <progress className="upload-progress" max={100} value={row.percent} aria-label={`Upload progress of ${row.file.name}`}>
          {row.percent.toFixed(2)}%
        </progress>
      ) : null}
    </div>
  );
}
