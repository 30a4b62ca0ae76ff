/**
 * One resumable upload with tus-js-client, as the spec's status machine: initial → uploading ⇄ pause →
 * success | fail. A network failure pauses and resumes by itself when the browser is back online; the
 * fingerprint kept by tus-js-client lets the same file resume after a reload instead of starting over.
 */
import { API, formatStoredDate, formatStoredTime, type UploadStatus } from "@daysync/shared";
import { useCallback, useEffect, useRef, useState } from "react";
import { DetailedError, Upload } from "tus-js-client";
import { newUuid } from "../../../lib/uuid.ts";

export interface FileUploadState {
  status: UploadStatus;
  file: File | null;
  /** 0–100. */
  percent: number;
  /** Why the upload failed, in words a person can act on. */
  problem: string | null;
  /** The user stopped it: still the spec's "fail" status, but shown as a neutral "Upload cancelled". */
  cancelled: boolean;
}

const INITIAL: FileUploadState = { status: "initial", file: null, percent: 0, problem: null, cancelled: false };
const CHUNK_SIZE = 8 * 1024 * 1024;

/** Statuses after which retrying cannot help: not signed in, not yours, too large, or refused. */
function isFinal(error: Error): boolean {
  const status = error instanceof DetailedError ? error.originalResponse?.getStatus() : undefined;
  return status !== undefined && status >= 400 && status < 500 && status !== 409 && status !== 423 && status !== 429;
}

function messageOf(error: Error): string {
  if (error instanceof DetailedError) {
    const body = error.originalResponse?.getBody();
    try {
      const parsed = JSON.parse(body ?? "") as { error?: { message?: string } };
      if (parsed.error?.message) return parsed.error.message;
    } catch {
      // not our JSON body
    }
    const status = error.originalResponse?.getStatus();
    if (status === 401) return "Your session has ended. Please sign in again.";
    if (status === 404) return "This upload is no longer available.";
  }
  return "The upload could not be completed.";
}

export function useFileUpload(options: { maxFileSize?: number; maxFileLabel?: string; onUploaded?: (file: File) => void }) {
  const [state, setState] = useState<FileUploadState>(INITIAL);
  const upload = useRef<Upload | null>(null);
  const pausedByNetwork = useRef(false);
  const { maxFileSize, maxFileLabel, onUploaded } = options;

  const select = useCallback((file: File | null) => {
    upload.current = null;
    setState(file ? { ...INITIAL, file } : INITIAL);
  }, []);

  const start = useCallback(async () => {
    const file = state.file;
    if (!file) return;
    if (maxFileSize !== undefined && file.size > maxFileSize) {
      setState((s) => ({
        ...s,
        status: "fail",
        problem: `This file is too large: your plan allows files up to ${maxFileLabel ?? `${maxFileSize} bytes`}.`,
      }));
      return;
    }
    const now = new Date();
    const tus = new Upload(file, {
      endpoint: API.uploads,
      chunkSize: CHUNK_SIZE,
      retryDelays: [0, 1000, 3000],
      storeFingerprintForResuming: true,
      removeFingerprintOnSuccess: true,
      metadata: {
        filename: file.name,
        filetype: file.type,
        message_id: newUuid(),
        date: formatStoredDate(now),
        time: formatStoredTime(now),
      },
      onShouldRetry: (error) => !isFinal(error),
      onProgress: (sent, total) => {
        setState((s) => (s.status === "uploading" ? { ...s, percent: total ? (sent / total) * 100 : 0 } : s));
      },
      onSuccess: () => {
        // Done: the file message arrives over the live connection; the composer starts afresh.
        upload.current = null;
        setState(INITIAL);
        onUploaded?.(file);
      },
      onError: (error) => {
        if (isFinal(error)) {
          upload.current = null;
          setState((s) => ({ ...s, status: "fail", problem: messageOf(error) }));
        } else {
          // The network went away or the server did not answer: keep the upload, resume later.
          pausedByNetwork.current = true;
          setState((s) => ({ ...s, status: "pause", problem: null }));
        }
      },
    });
    upload.current = tus;
    setState((s) => ({ ...s, status: "uploading", problem: null }));
    const previous = await tus.findPreviousUploads();
    const sameFile = previous[0];
    if (sameFile) tus.resumeFromPreviousUpload(sameFile);
    tus.start();
  }, [state.file, maxFileSize, maxFileLabel, onUploaded]);

  const pause = useCallback(() => {
    pausedByNetwork.current = false;
    void upload.current?.abort(false);
    setState((s) => (s.status === "uploading" ? { ...s, status: "pause" } : s));
  }, []);

  const resume = useCallback(() => {
    if (!upload.current) return;
    pausedByNetwork.current = false;
    setState((s) => ({ ...s, status: "uploading", problem: null }));
    upload.current.start();
  }, []);

  /** Cancels the selection, or stops a running upload and deletes what reached the server. */
  const cancel = useCallback(async () => {
    const running = upload.current;
    upload.current = null;
    if (running) {
      setState({ ...INITIAL, status: "fail", cancelled: true });
      await running.abort(true).catch(() => undefined);
    } else {
      setState(INITIAL);
    }
  }, []);

  useEffect(() => {
    const onOnline = () => {
      if (pausedByNetwork.current) resume();
    };
    window.addEventListener("online", onOnline);
    return () => window.removeEventListener("online", onOnline);
  }, [resume]);

  useEffect(() => () => void upload.current?.abort(false), []);

  return { state, select, start, pause, resume, cancel };
}
