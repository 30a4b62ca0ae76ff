import { UPLOAD_TEXT } from "@daysync/shared";
import type { FileUploadState } from "./use-file-upload.ts";

/** The spec's status line of an upload, with a progress bar while it runs. */
export function UploadStatusLine({ state }: { state: FileUploadState }) {
  if (state.status === "initial") return null;
  const cancelled = state.status === "fail" && state.cancelled;
  const text = cancelled
    ? UPLOAD_TEXT.cancelled
    : state.status === "uploading"
      ? UPLOAD_TEXT.uploading(state.percent)
      : state.status === "pause"
        ? UPLOAD_TEXT.paused
        : state.status === "success"
          ? UPLOAD_TEXT.success
          : UPLOAD_TEXT.failed;
  return (
    <div className="upload-status" data-status={cancelled ? "cancelled" : state.status}>
      <p role="status" aria-live="polite" className="upload-status-text">
        {text}
        {state.problem ? <span className="upload-problem"> {state.problem}</span> : null}
      </p>
      {state.status === "uploading" || state.status === "pause" ? (
        <progress className="upload-progress" max={100} value={state.percent} aria-label="Upload progress">
          {state.percent.toFixed(2)}%
        </progress>
      ) : null}
    </div>
  );
}
