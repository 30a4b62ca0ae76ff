/** Where file bytes live. Uploads are written through the tus datastore; everything else reads through here. */
import type { Readable } from "node:stream";
import type { DataStore } from "@tus/utils";

/** An upload still receiving bytes: its declared length and the metadata it was created with. */
export interface UnfinishedUpload {
  id: string;
  size: number;
  metadata: Record<string, string | null>;
}

export interface FileStorage {
  /** The tus datastore that receives uploads (resumable, by server-made id). */
  readonly datastore: DataStore;
  /** Bytes of the volume the files are on: in all, and left for them. */
  volume(): Promise<{ size: number; free: number }>;
  /** Size in bytes of a stored file, or undefined when there is none. */
  size(id: string): Promise<number | undefined>;
  /** The first bytes of a file, for content-type detection. */
  head(id: string, bytes: number): Promise<Buffer>;
  /** Reads a file, or the inclusive byte range of it. */
  read(id: string, range?: { start: number; end: number }): Readable;
  /**
   * Cuts an unfinished upload's file back to `length` bytes; its offset follows (a tus upload's offset is what its
   * file holds). Call it under the upload's lock only.
   */
  truncate(id: string, length: number): Promise<void>;
  /** Deletes a file and its upload record; no error when it is already gone. */
  remove(id: string): Promise<void>;
  /** Uploads that have not received all their bytes yet (not expired ones), for counting storage. */
  unfinishedUploads(): Promise<UnfinishedUpload[]>;
  /** Deletes incomplete uploads older than the expiry; returns how many. */
  removeExpired(): Promise<number>;
  /** Resolves when a file can be written and removed where uploads go (the readiness check). */
  checkWritable(): Promise<void>;
}
