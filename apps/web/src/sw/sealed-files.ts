/**
 * The service worker's route for sealed files (docs/protocol/encryption.md, "File records"): downloads, players and direct navigations
 * to `/sealed-files/<message id>?…` get the file's plaintext, opened as it streams with the keys the page keeps in
 * IndexedDB (a file of an encrypted discussion: with the room's keys, read from what the account's devices keep
 * sealed for it), under its real name; a Range (players) gets only the records that hold it. A file that cannot be opened
 * gets an error status and its sentence, never bytes; a record that fails mid-way errors the stream, so the browser
 * drops what it had.
 */
import { SEALED_TEXT } from "@daysync/shared";
import { browserKeyStorage } from "../lib/sealing/key-store.ts";
import { readRoom, signedInUser } from "../lib/sealing/room-state.ts";
import {
  attachment,
  FileFetchError,
  type FileKeys,
  openSealedFile,
  parseRange,
  plainBytes,
  readSealedFileLink,
} from "../lib/sealing/sealed-files.ts";

const said = (status: number, text: string) =>
  new Response(text, { status, headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" } });

export async function serveSealedFile({ request, url }: { request: Request; url: URL }): Promise<Response> {
  const file = readSealedFileLink(url);
  if (!file) return said(400, "This link does not name a file.");
  try {
    const userId = await signedInUser();
    if (!userId) return said(401, "Sign in to Daysync to open this file.");
    const held = await browserKeyStorage(userId)
      .load()
      .catch(() => undefined);
    const account = { userId, epochs: held?.epochs ?? new Map() };
    let keys: FileKeys = account;
    if (file.discussion) {
      const room = await readRoom(account, file.discussion);
      if (!room) return said(404, "This file is gone.");
      keys = { room: room.holding?.generations ?? new Map() };
    }
    const opened = await openSealedFile(keys, file);
    if (opened.state === "locked") return said(403, file.discussion ? SEALED_TEXT.roomLocked : SEALED_TEXT.locked);
    if (opened.state === "undecryptable") return said(422, SEALED_TEXT.undecryptable);

    const range = parseRange(request.headers.get("range"), opened.size);
    const headers = new Headers({
      "content-type": opened.contentType,
      "content-disposition": attachment(opened.name),
      "accept-ranges": "bytes",
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    });
    if (range === "unsatisfiable") {
      headers.set("content-range", `bytes */${opened.size}`);
      return new Response(null, { status: 416, headers });
    }
    const part = range === "none" ? undefined : range;
    // No abort signal: a download takes the response over from its page. A reader that stops cancels the stream.
    const body = await plainBytes(file, opened, part);
    headers.set("content-length", String(part ? part.end - part.start : opened.size));
    if (!part) return new Response(body, { status: 200, headers });
    headers.set("content-range", `bytes ${part.start}-${part.end - 1}/${opened.size}`);
    return new Response(body, { status: 206, headers });
  } catch (error) {
    if (error instanceof FileFetchError) {
      return said(error.status === 404 ? 404 : 502, error.status === 404 ? "This file is gone." : "The file could not be fetched.");
    }
    return said(500, SEALED_TEXT.undecryptable);
  }
}
