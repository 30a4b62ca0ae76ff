/** The composer's file mode: pick (or drop, or paste) a file, send it, pause, resume or cancel it. */
import { TEXT } from "@daysync/shared";
import { useId, useRef } from "react";
import { formatBytes } from "./format-bytes.ts";
import { UploadStatusLine } from "./upload-status.tsx";
import type { useFileUpload } from "./use-file-upload.ts";

interface FileComposerProps {
  upload: ReturnType<typeof useFileUpload>;
  maxLabel?: string;
}

export function FileComposer({ upload, maxLabel }: FileComposerProps) {
  const { state, select, start, pause, resume, cancel } = upload;
  const inputId = useId();
  const input = useRef<HTMLInputElement>(null);
  const busy = state.status === "uploading" || state.status === "pause";
  const hasSelection = state.file !== null;

  return (
    <div className="file-composer">
      <div className="composer-row">
        <label htmlFor={inputId} className="btn btn-secondary file-pick">
          {hasSelection ? "Choose another file" : "Choose file"}
        </label>
        <input
          id={inputId}
          ref={input}
          type="file"
          className="visually-hidden"
          disabled={busy}
          onChange={(e) => {
            select(e.currentTarget.files?.[0] ?? null);
            e.currentTarget.value = "";
          }}
        />
        <p className="file-selected" aria-live="polite">
          {state.file ? (
            <>
              <span className="file-selected-name">{state.file.name}</span>{" "}
              <span className="file-selected-size">{formatBytes(state.file.size)}</span>
            </>
          ) : (
            <span className="file-selected-none">No file selected{maxLabel ? ` · up to ${maxLabel}` : ""} · or drop one here</span>
          )}
        </p>
        {hasSelection || busy ? (
          <button type="button" className="btn btn-icon file-cancel" aria-label="Cancel file" title="Cancel" onClick={() => void cancel()}>
            ✕
          </button>
        ) : null}
        {state.status === "uploading" ? (
          <button type="button" className="btn btn-secondary" onClick={pause}>
            Pause
          </button>
        ) : null}
        {state.status === "pause" ? (
          <button type="button" className="btn btn-secondary" onClick={resume}>
            Resume
          </button>
        ) : null}
        {!busy ? (
          <button type="button" className="btn btn-primary" disabled={!hasSelection} onClick={() => void start()}>
            {TEXT.sendFile}
          </button>
        ) : null}
      </div>
      <UploadStatusLine state={state} />
    </div>
  );
}
