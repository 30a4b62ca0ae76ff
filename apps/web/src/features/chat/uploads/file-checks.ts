import { formatFileSize } from "@daysync/shared";

export interface Limits {
  /** The plan's largest file, when known. */
  maxFileSize?: number;
  maxFileLabel?: string;
  /** The account's storage, when known. */
  storage?: { used: number; limit: number };
  /** Bytes of files staged or waiting to be sent, which the server does not count yet. */
  pending: number;
}

/**
 * Splits picked files into those that can be sent and sentences saying why the others cannot, so a file that
 * is too large is refused when it is picked, not after the user pressed Send.
 */
export function checkFiles(files: File[], limits: Limits): { accepted: File[]; refusals: string[] } {
  const accepted: File[] = [];
  const refusals: string[] = [];
  const { maxFileSize, storage } = limits;
  let left = storage ? storage.limit - storage.used - limits.pending : Number.POSITIVE_INFINITY;
  for (const file of files) {
    const size = formatFileSize(file.size);
    if (maxFileSize !== undefined && file.size > maxFileSize) {
      refusals.push(`${file.name} is ${size}; your plan allows files up to ${limits.maxFileLabel ?? formatFileSize(maxFileSize)}.`);
    } else if (storage && file.size > left) {
      refusals.push(
        `${file.name} is ${size}; only ${formatFileSize(Math.max(0, left))} of your plan's ${formatFileSize(storage.limit)} of storage is left.`,
      );
    } else {
      accepted.push(file);
      left -= file.size;
    }
  }
  return { accepted, refusals };
}
