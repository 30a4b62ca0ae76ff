/**
 * Values of an encrypted discussion (docs/protocol/encryption.md, "Encrypted discussions"): the envelope of sealed
 * values (`v1.<generation>.<base64url(nonce ‖ ciphertext ‖ tag)>`) under the generation's message key (a file's key:
 * under its file-key key), with associated data that binds each to its place:
 * `daysync/v1/room|<field>|<room id>|<generation>|<message id>|<type>|<date>|<time>|<sender member key id>`.
 * A value moved to another discussion, generation, message, field, type, date, time or sender does not open, and the
 * device shows "This message could not be decrypted". File bytes are the records of file-records.ts under the file's key.
 */
import { messageFormSchema } from "../schemas.ts";
import { type Bytes, utf8 } from "./encoding.ts";
import { UndecryptableError } from "./errors.ts";
import type { CryptoKey } from "./key-types.ts";
import { importAesKey } from "./primitives.ts";
import { RoomError, refusedAs } from "./room-errors.ts";
import type { RoomKeys } from "./room-key.ts";
import { previewOf } from "./sealed-message.ts";
import { FILE_KEY_LENGTH, makeFileKey, openEnvelope, sealEnvelope, textOf } from "./sealed-value.ts";

/** `title`: the discussion's title (message id: the rename's id); `name`: a member's display name (message id empty). */
export type RoomField = "content" | "filename" | "preview" | "file-key" | "title" | "name";

/** Where a value belongs in its discussion; the room and generation are those of the keys it is sealed under. */
export interface RoomPlace {
  field: RoomField;
  messageId: string;
  type: string;
  date: string;
  time: string;
  senderKeyId: string;
}

export function roomValueAad(keys: Pick<RoomKeys, "roomId" | "generation">, place: RoomPlace): Bytes {
  const { field, messageId, type, date, time, senderKeyId } = place;
  const fields = [field, keys.roomId, String(keys.generation), messageId, type, date, time, senderKeyId];
  if (fields.some((value) => value.includes("|"))) throw new TypeError("A room value's place holds a |");
  return utf8(`daysync/v1/room|${fields.join("|")}`);
}

export function sealRoomValue(keys: RoomKeys, place: RoomPlace, text: string): Promise<string> {
  return sealEnvelope(keys.message, roomValueAad(keys, place), keys.generation, utf8(text));
}

/** The text of a value sealed at `place` under these keys; RoomError "undecryptable" when it does not open there. */
export async function openRoomValue(keys: RoomKeys, place: RoomPlace, sealed: string): Promise<string> {
  return refusedAs("undecryptable", async () => textOf(await openAt(keys.message, keys, place, sealed), place.field));
}

function openAt(key: CryptoKey, keys: RoomKeys, place: RoomPlace, sealed: string): Promise<Bytes> {
  return openEnvelope(key, roomValueAad(keys, place), keys.generation, sealed, place.field);
}

/** A file's raw key sealed under the generation's file-key key, as field `file-key` of its message. */
export function sealRoomFileKey(keys: RoomKeys, place: Omit<RoomPlace, "field">, fileKey: Bytes): Promise<string> {
  if (fileKey.length !== FILE_KEY_LENGTH) throw new TypeError(`A file key is ${FILE_KEY_LENGTH} bytes`);
  return sealEnvelope(keys.fileKey, roomValueAad(keys, { ...place, field: "file-key" }), keys.generation, fileKey);
}

/** The file's key for its records (file-records.ts); RoomError "undecryptable" when it does not open at this place. */
export function openRoomFileKey(keys: RoomKeys, place: Omit<RoomPlace, "field">, sealed: string): Promise<CryptoKey> {
  return refusedAs("undecryptable", async () => {
    const raw = await openAt(keys.fileKey, keys, { ...place, field: "file-key" }, sealed);
    if (raw.length !== FILE_KEY_LENGTH) throw new UndecryptableError("A sealed file-key");
    return importAesKey(raw);
  });
}

/** The sending member: its membership's key id and the generation it seals under (the current one: room-rotation.ts). */
export interface RoomSender {
  keys: RoomKeys;
  memberKeyId: string;
}

/** A text message of a discussion, trimmed as the server trimmed it in clear, with its preview (also the push text). */
export async function sealRoomText(sender: RoomSender, typed: { id: string; date: string; time: string; content: string }) {
  const content = typed.content.trim();
  const place = { messageId: typed.id, type: "text", date: typed.date, time: typed.time, senderKeyId: sender.memberKeyId };
  const [sealedContent, preview] = await Promise.all([
    sealRoomValue(sender.keys, { ...place, field: "content" }, content),
    sealRoomValue(sender.keys, { ...place, field: "preview" }, previewOf(content)),
  ]);
  return { id: typed.id, date: typed.date, time: typed.time, generation: sender.keys.generation, content: sealedContent, preview };
}

/**
 * A file message's sealed fields (its name, the name again as preview and push text, its key) and the key its records
 * are sealed under (`createSealingSource` of file-records.ts, with the message id).
 */
export async function sealRoomFile(sender: RoomSender, file: { id: string; date: string; time: string; type: string; name: string }) {
  const place = { messageId: file.id, type: file.type, date: file.date, time: file.time, senderKeyId: sender.memberKeyId };
  const rawKey = makeFileKey();
  const [filename, preview, fileKeySealed, fileKey] = await Promise.all([
    sealRoomValue(sender.keys, { ...place, field: "filename" }, file.name),
    sealRoomValue(sender.keys, { ...place, field: "preview" }, file.name),
    sealRoomFileKey(sender.keys, place, rawKey),
    importAesKey(rawKey),
  ]);
  return { fields: { generation: sender.keys.generation, filename, preview, file_key: fileKeySealed }, fileKey };
}

/** A discussion's message as the server keeps it: sealed `content` (text) or `filename` (a file), and `preview`. */
export interface SealedRoomMessage {
  id: string;
  type: string;
  date: string;
  time: string;
  generation: number;
  senderKeyId: string;
  content: string;
  filename: string;
  preview: string;
}

export type OpenedRoomMessage = { state: "opened"; text: string; preview: string } | { state: "locked"; generation: number };

/**
 * Opens a message with the generations this device holds of its discussion: "locked" for one it does not hold,
 * RoomError "undecryptable" for one that does not open, or opens to a preview or text no member's device sends.
 */
export async function openRoomMessage(held: ReadonlyMap<number, RoomKeys>, message: SealedRoomMessage): Promise<OpenedRoomMessage> {
  const keys = held.get(message.generation);
  if (!keys) return { state: "locked", generation: message.generation };
  const isText = message.type === "text";
  const place = { messageId: message.id, type: message.type, date: message.date, time: message.time, senderKeyId: message.senderKeyId };
  const text = await openRoomValue(keys, { ...place, field: isText ? "content" : "filename" }, isText ? message.content : message.filename);
  const preview = await openRoomValue(keys, { ...place, field: "preview" }, message.preview);
  if (preview !== (isText ? previewOf(text) : text) || (isText && !messageFormSchema.shape.message.safeParse(text).success)) {
    throw new RoomError("undecryptable");
  }
  return { state: "opened", text, preview };
}
