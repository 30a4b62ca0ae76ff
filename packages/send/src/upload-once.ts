/**
 * A Blob sealed afresh and uploaded in one run, with no retries and nothing kept to resume: for senders that say at
 * once whether it went (the service worker's share target keeps the share and tries later; the extension says why).
 */
import type { FileToSeal, Sealer } from "@daysync/shared/crypto";
import { fetchHttpStack } from "./fetch-http-stack.ts";
import { blobFile, SEALED_CHUNK_SIZE, sealedUploadStart, sealingFileReader } from "./sealed-upload.ts";
import { uploadToEnd } from "./tus-answers.ts";

/** Rejects with tus-js-client's error, as `uploadToEnd` does. */
export async function uploadSealedOnce(
  sealer: Sealer,
  file: Blob,
  message: FileToSeal,
  target: { url: string; headers?: Record<string, string> },
): Promise<void> {
  const { sealed } = await sealedUploadStart(sealer, message, [], async () => undefined);
  await uploadToEnd(file, {
    endpoint: target.url,
    ...(target.headers ? { headers: target.headers } : {}),
    httpStack: fetchHttpStack,
    metadata: sealed.metadata,
    fileReader: sealingFileReader(sealed, blobFile(file)),
    chunkSize: SEALED_CHUNK_SIZE,
    retryDelays: null,
    storeFingerprintForResuming: false,
  });
}
