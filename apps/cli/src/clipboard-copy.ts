/**
 * What a copy becomes once it is sent, for `daysync clip` and `daysync send --clipboard` alike: a text message, or a
 * file when the text is too long for a message or the copy is an image (sealed as `send --file` seals it).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { MAX_MESSAGE_LENGTH } from "@daysync/shared";
import type { ApiClient } from "./api-client.ts";
import type { ClipboardSnapshot } from "./clipboard-tools.ts";
import type { ConfigStore } from "./config-store.ts";
import type { MessageKeys } from "./sealing/message-keys.ts";
import { type SentFile, uploadFile } from "./upload.ts";

export type CopyToSend = { text: string } | { file: Buffer; name: string };

const fileStamp = (date: Date) => date.toISOString().slice(0, 19).replace(/[:T]/g, "-");

/** The copy as it is sent; undefined for nothing to send (no text, or only blanks, and no image). */
export function copyToSend(snapshot: ClipboardSnapshot, at: Date): CopyToSend | undefined {
  const text = snapshot.text;
  if (text?.trim()) {
    return text.trim().length > MAX_MESSAGE_LENGTH ? { file: Buffer.from(text), name: `clipboard-${fileStamp(at)}.txt` } : { text };
  }
  return snapshot.image ? { file: snapshot.image, name: `clipboard-${fileStamp(at)}.png` } : undefined;
}

/** Uploads a copy's bytes as a file of its name, through a folder of its own that goes once it is sent. */
export async function uploadCopy(
  store: ConfigStore,
  api: ApiClient,
  userId: string,
  copy: { file: Buffer; name: string },
  loadKeys: () => Promise<MessageKeys>,
): Promise<SentFile> {
  const dir = mkdtempSync(path.join(tmpdir(), "daysync-clip-"));
  const file = path.join(dir, copy.name);
  try {
    writeFileSync(file, copy.file);
    return await uploadFile(store, api, userId, file, loadKeys);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
