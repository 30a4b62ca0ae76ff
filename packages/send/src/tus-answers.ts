/** What the server answered a tus request, read from tus-js-client's errors. */
import { responseSchemas } from "@daysync/shared";
import { DetailedError, type PreviousUpload, Upload, type UploadOptions } from "tus-js-client";
import { isKeyMovedAnswer } from "./reseal.ts";

/** The HTTP status of a tus error; 0 when no answer came (the network, or the request never left). */
export const statusOf = (error: unknown): number => (error instanceof DetailedError ? (error.originalResponse?.getStatus() ?? 0) : 0);

/** The server's JSON error of a tus answer, if it sent one. */
export function serverErrorOf(error: unknown): { code: string; message: string } | undefined {
  if (!(error instanceof DetailedError)) return undefined;
  try {
    const parsed = responseSchemas.error.safeParse(JSON.parse(error.originalResponse?.getBody() ?? ""));
    return parsed.success ? parsed.data.error : undefined;
  } catch {
    return undefined;
  }
}

/** 409 `key_epoch_changed` / `key_rotation_due`: the server removed the upload; it goes again under the next epoch. */
export const isKeyMovedUpload = (error: unknown): boolean => isKeyMovedAnswer(statusOf(error), serverErrorOf(error)?.code);

/** How one upload to its end is run: where it goes on from, and what stops it. */
export interface UploadRun {
  /** The kept upload to resume at the server's offset. */
  previous?: PreviousUpload | undefined;
  signal?: AbortSignal;
  /** The error an abort through `signal` rejects with. */
  interrupted?: () => Error;
}

/** One tus upload to its last byte, as a promise: it rejects with tus-js-client's error (or `interrupted()`). */
export function uploadToEnd(input: unknown, options: UploadOptions, run: UploadRun = {}): Promise<void> {
  const { signal, previous } = run;
  const interrupted = run.interrupted ?? (() => new Error("The upload was interrupted"));
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(interrupted());
    const onAbort = () => {
      void upload.abort();
      reject(interrupted());
    };
    const upload = new Upload(input as ConstructorParameters<typeof Upload>[0], {
      ...options,
      onSuccess: (payload) => {
        signal?.removeEventListener("abort", onAbort);
        options.onSuccess?.(payload);
        resolve();
      },
      onError: (error) => {
        signal?.removeEventListener("abort", onAbort);
        reject(error);
      },
    });
    signal?.addEventListener("abort", onAbort, { once: true });
    if (previous) upload.resumeFromPreviousUpload(previous);
    upload.start();
  });
}
