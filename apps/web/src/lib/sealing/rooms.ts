/**
 * This tab's hold on its encrypted discussions (docs/protocol/encryption.md, "Encrypted discussions"): per room, the
 * member key and the generations it holds (`RoomHolding`), rebuilt from what the server keeps sealed for the account's
 * own devices (room-own.ts) and the wraps addressed to the member key, and kept current: a rotation another member made
 * is taken (`acceptRotation`), a member seen leaving makes this device rotate (`makeRotation`). It creates rooms, joins
 * by link, seals texts under the current generation and opens titles and names. Every check is the core's; a refusal
 * is shown in its words (`RoomError`).
 */
import {
  type CreateRoomInput,
  DISCUSSIONS_API,
  type DiscussionMessage,
  epochOfSealedValue,
  type JoinRequestAnswer,
  ROOM_ERROR_CODES,
  ROOMS_API,
  type RoomState,
  responseSchemas,
  roomResponseSchemas,
  SEALED_TEXT,
  type SendMessageInput,
  type SendRoomMessageInput,
} from "@daysync/shared";
import {
  acceptRotation,
  type Bytes,
  type CryptoKey,
  createRoom,
  deriveRoomKeys,
  emptyHolding,
  entryBody,
  hold,
  holdOlder,
  joinByLink,
  keyForRoom,
  type MemberKey,
  makeMemberSeed,
  makeRotation,
  memberKeyOf,
  memberSecurityCode,
  namePlace,
  type OpenedRoomMessage,
  openFromOwnDevices,
  openRoomFileKey,
  openRoomKeyWrap,
  openRoomMessage,
  openRoomValue,
  RoomError,
  type RoomHolding,
  type RoomKeys,
  type RoomKeyWrap,
  type RoomLinkKey,
  type RoomPlace,
  type RoomSender,
  roomFragment,
  roomSender,
  sawLeave,
  sealForOwnDevices,
  sealRoomFile,
  sealRoomText,
  sealRoomValue,
  taggedAt,
  taggedOf,
  wrapBody,
  wrapOf,
} from "@daysync/shared/crypto";
import { ApiError, api, apiFetch } from "../api-client.ts";
import type { DeviceKeys } from "./device-keys.ts";
import { contentTypeOf, plainBlob, plainSizeOf, type SealedFileMessage } from "./sealed-files.ts";

/** What a page shows of one encrypted discussion, as this device opened it. */
export interface RoomView {
  encrypted: true;
  roomId: string;
  state: RoomState;
  /** Undefined while this device holds no key of it (or was refused one: `problem`). */
  holding: RoomHolding | undefined;
  /** The title opened, undefined while its generation is not held. */
  title: string | undefined;
  /** Display names by member id, opened from each member's latest entry this device holds. */
  names: ReadonlyMap<string, string>;
  /** Display names by member key id, for a message's sender. */
  namesByKey: ReadonlyMap<string, string>;
  /** Each member's security code, by member id (their key in the newest generation that lists them). */
  codes: ReadonlyMap<string, string>;
  /** The share link's fragment, made from the current generation this device holds. */
  fragment: string | undefined;
  /** Why this device does not read or send here, in the core's words. */
  problem: string | undefined;
}

/** What opening a message of a room reads of it. */
export type RoomMessageFields = Pick<
  DiscussionMessage,
  | "id"
  | "type"
  | "date"
  | "time"
  | "generation"
  | "sender_key_id"
  | "content"
  | "filename"
  | "preview"
  | "file_key"
  | "file_size"
  | "file_url"
>;

/** This device cannot do it for want of a key (its account's, or the room's): the sentence says which. */
export class NoRoomKeyError extends Error {
  override name = "NoRoomKeyError";
}

export const NO_ROOM_KEY = "This device does not hold this discussion's key yet, so it cannot do this. Try again in a moment.";

export type RoomAnswer = RoomView | { encrypted: false };

const TITLE_PLACE = { field: "title", messageId: "", type: "", date: "", time: "" } as const;

/** A member's display name sealed under `keys` (field `name`, sender the member). */
export const sealName = (keys: RoomKeys, keyId: string, name: string) => sealRoomValue(keys, namePlace(keyId), name);

export { entryBody, taggedAt, taggedOf, wrapBody, wrapOf };

const entriesOf = (state: RoomState, generation: number) => state.generations.find((g) => g.generation === generation)?.entries ?? [];

const isEncryptedRoomRefusal = (error: unknown) => error instanceof ApiError && error.code === ROOM_ERROR_CODES.encryptedRoom;

export class Rooms {
  private readonly holdings = new Map<string, RoomHolding>();
  private readonly states = new Map<string, RoomState>();
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly listeners = new Set<(roomId: string) => void>();
  /** Discussions the server said are in clear (409 to a room route): their messages go as before. */
  private readonly clear = new Set<string>();

  constructor(
    private readonly userId: string,
    private readonly keys: Pick<DeviceKeys, "knownStatus">,
  ) {}

  /** Told when a room's keys changed here (a generation taken or made): its messages and waiting sends try again. */
  readonly subscribe = (listener: (roomId: string) => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private changed(roomId: string) {
    for (const listener of this.listeners) listener(roomId);
  }

  /** One piece of work per room at a time, in order. */
  private queued<T>(roomId: string, work: () => Promise<T>): Promise<T> {
    const next = (this.queues.get(roomId) ?? Promise.resolve()).then(work, work);
    this.queues.set(
      roomId,
      next.catch(() => undefined),
    );
    return next;
  }

  /** The account's epochs this device holds, and the current one to seal under (none: the device is locked). */
  private async account() {
    const status = await this.keys.knownStatus();
    if (status.state !== "ready") return undefined;
    const current = status.keys.epochs.get(status.epoch);
    return current ? { epoch: status.epoch, current, epochs: status.keys.epochs } : undefined;
  }

  /** The member seed and room keys sealed for the account's own devices, under its current epoch. */
  private async ownValues(roomId: string, seed: Bytes | undefined, roomKeys: ReadonlyMap<number, Bytes>) {
    const account = await this.account();
    if (!account) throw new NoRoomKeyError(SEALED_TEXT.approveToSend);
    const place = { userId: this.userId, accountEpoch: account.epoch, roomId };
    const values: { generation: number; value: string }[] = [];
    if (seed)
      values.push({
        generation: 0,
        value: await sealForOwnDevices(account.current, { ...place, what: "member-seed", generation: 0 }, seed),
      });
    for (const [generation, key] of roomKeys) {
      values.push({ generation, value: await sealForOwnDevices(account.current, { ...place, what: "room-key", generation }, key) });
    }
    return values;
  }

  /** Opens one value the account's devices sealed; undefined when this device does not hold its epoch or it does not open. */
  private async openOwn(roomId: string, value: string, what: "member-seed" | "room-key", generation: number) {
    const account = await this.account();
    const accountEpoch = epochOfSealedValue(value);
    const epochKeys = account?.epochs.get(accountEpoch);
    if (!epochKeys) return undefined;
    return openFromOwnDevices(epochKeys, { userId: this.userId, accountEpoch, roomId, what, generation }, value).catch(() => undefined);
  }

  /** A new encrypted discussion made on this device: its id, generation 1, the sealed title and name. */
  create(title: string, displayName: string): Promise<RoomState> {
    const id = crypto.randomUUID();
    return this.queued(id, async () => {
      const seed = makeMemberSeed();
      const self = await memberKeyOf(seed);
      const { entry, holding } = await createRoom(id, self, displayName);
      const keys = holding.generations.get(1) as RoomKeys;
      const body: CreateRoomInput = {
        id,
        sealed_title: await sealRoomValue(keys, { ...TITLE_PLACE, senderKeyId: self.keyId }, title.trim()),
        entry: await entryBody(keys, entry, displayName),
        own: await this.ownValues(id, seed, holding.roomKeys),
      };
      const state = await api.post(ROOMS_API.create, body, roomResponseSchemas.room);
      this.holdings.set(id, holding);
      this.states.set(id, state);
      return state;
    });
  }

  /** Joins with a link's key, once the server showed which room the public id is (`keyForRoom`). */
  async joinByLink(publicId: string, link: RoomLinkKey, displayName: string): Promise<RoomState> {
    const lookup = await api.get(ROOMS_API.lookup(publicId), roomResponseSchemas.lookup);
    const key = keyForRoom(link, lookup.id);
    return this.queued(key.roomId, async () => {
      const seed = makeMemberSeed();
      const self = await memberKeyOf(seed);
      const { entry, holdWith } = await joinByLink(key, self, displayName);
      const keys = await deriveRoomKeys(key.roomKey, key.roomId, key.generation);
      const own = await this.ownValues(key.roomId, seed, new Map([[key.generation, key.roomKey]]));
      const body = { generation: key.generation, entry: await entryBody(keys, entry, displayName), own };
      const state = await api.post(ROOMS_API.joinByLink(publicId), body, roomResponseSchemas.room);
      this.states.set(key.roomId, state);
      this.holdings.set(key.roomId, await holdWith(taggedAt(state, key.generation)));
      return state;
    });
  }

  /** After an admission by typed ID: the joiner's holding, kept for its account's devices with its name sealed. */
  async admitted(holding: RoomHolding, seed: Bytes, displayName: string): Promise<void> {
    await this.queued(holding.roomId, async () => {
      const keys = holding.generations.get(holding.highest) as RoomKeys;
      const body = {
        values: await this.ownValues(holding.roomId, seed, holding.roomKeys),
        sealed_name: await sealName(keys, holding.self.keyId, displayName),
      };
      this.states.set(holding.roomId, await api.put(ROOMS_API.own(holding.roomId), body, roomResponseSchemas.room));
      this.holdings.set(holding.roomId, holding);
    });
  }

  /** The room as the server has it now, taken into this device's holding; `{ encrypted: false }` for a clear discussion. */
  sync(roomId: string): Promise<RoomAnswer> {
    return this.queued(roomId, () => this.syncNow(roomId, 0));
  }

  private async syncNow(roomId: string, rotations: number): Promise<RoomAnswer> {
    let state: RoomState;
    try {
      state = await api.get(ROOMS_API.state(roomId), roomResponseSchemas.room);
    } catch (error) {
      if (isEncryptedRoomRefusal(error)) {
        this.clear.add(roomId);
        return { encrypted: false };
      }
      throw error;
    }
    this.states.set(roomId, state);
    let problem: string | undefined;
    let holding = this.holdings.get(roomId);
    try {
      holding ??= await this.holdingFromOwn(state);
      if (holding) {
        this.holdings.set(roomId, holding);
        const before = holding.highest;
        await this.takeGenerations(holding, state);
        if (holding.highest > before) await this.keepOwn(holding, state);
        if (holding.highest !== before) this.changed(roomId);
        if (rotations < 2 && (await this.rotateIfSomeoneLeft(holding, state))) return this.syncNow(roomId, rotations + 1);
        state = (await this.titleUnderCurrentKey(holding, state)) ?? state;
      }
    } catch (error) {
      if (!(error instanceof RoomError)) throw error;
      problem = error.message;
    }
    return this.view(state, holding, problem);
  }

  /** A holding rebuilt from the values the account's devices keep: the member seed, then each room key. */
  private async holdingFromOwn(state: RoomState): Promise<RoomHolding | undefined> {
    const seedValue = state.own.find((o) => o.generation === 0);
    const seed = seedValue && (await this.openOwn(state.id, seedValue.value, "member-seed", 0));
    if (!seed) return undefined;
    const self = await memberKeyOf(seed);
    const holding = emptyHolding(state.id, self);
    const own = state.own.filter((o) => o.generation > 0).sort((a, b) => a.generation - b.generation);
    for (const { generation, value } of own) {
      const key = await this.openOwn(state.id, value, "room-key", generation);
      if (!key) continue;
      if (entriesOf(state, generation).some((e) => e.key_id === self.keyId))
        await hold(holding, generation, key, taggedAt(state, generation));
      else await holdOlder(holding, generation, key);
    }
    return holding;
  }

  /** The newest list of the generation held checked again (members joined), then each later one taken in order. */
  private async takeGenerations(holding: RoomHolding, state: RoomState) {
    const highestKey = holding.roomKeys.get(holding.highest);
    if (highestKey) await hold(holding, holding.highest, highestKey, taggedAt(state, holding.highest));
    for (let g = holding.highest + 1; g <= state.current_generation; g++) {
      const entriesNext = new Set(entriesOf(state, g).map((e) => e.key_id));
      // Who left before generation g was made: it must not list them, nor wrap for them.
      for (const e of entriesOf(state, g - 1)) if (e.left && !entriesNext.has(e.key_id)) sawLeave(holding, e.key_id);
      const wraps = state.wraps.filter((w) => w.generation === g).map(wrapOf);
      const own = wraps.find((w) => w.recipientKeyId === holding.self.keyId);
      if (!own) break;
      await acceptRotation(holding, { generation: g, senderKeyId: own.senderKeyId, wraps, roster: taggedAt(state, g) });
    }
    for (const e of entriesOf(state, holding.highest)) if (e.left) sawLeave(holding, e.key_id);
  }

  /** The room keys this device took, sealed for the account's other devices (they then read without the wraps' steps). */
  private async keepOwn(holding: RoomHolding, state: RoomState) {
    const kept = new Set(state.own.map((o) => o.generation));
    const missing = new Map([...holding.roomKeys].filter(([g]) => !kept.has(g)));
    if (missing.size === 0 || !(await this.account())) return;
    const values = await this.ownValues(state.id, undefined, missing);
    await api.put(ROOMS_API.own(state.id), { values }, roomResponseSchemas.room).catch(() => undefined);
  }

  /** Someone listed in the current generation left: this device makes the next one (the first device's wins). */
  private async rotateIfSomeoneLeft(holding: RoomHolding, state: RoomState): Promise<boolean> {
    const roster = holding.rosters.get(holding.highest);
    if (!roster || state.current_generation !== holding.highest || ![...holding.departed].some((k) => roster.has(k))) return false;
    const keys = holding.generations.get(holding.highest) as RoomKeys;
    const names = new Map<string, string>();
    for (const e of entriesOf(state, holding.highest)) {
      if (holding.departed.has(e.key_id)) continue;
      names.set(e.key_id, await openRoomValue(keys, namePlace(e.key_id), e.sealed_name));
    }
    const { rotation, keep } = await makeRotation(holding, names);
    const next = await this.nextKeys(holding.roomId, rotation.generation, rotation.wraps, holding.self);
    const entries = await Promise.all(rotation.roster.map((e) => entryBody(next, e, names.get(e.keyId) as string)));
    const body = { generation: rotation.generation, sender_key_id: holding.self.keyId, entries, wraps: rotation.wraps.map(wrapBody) };
    try {
      await api.post(ROOMS_API.generations(holding.roomId), body, roomResponseSchemas.room);
    } catch (error) {
      // Another member's device rotated first: its generation is taken at the next look.
      if (error instanceof ApiError && error.status === 409) return true;
      throw error;
    }
    await keep();
    return true;
  }

  /**
   * The creator's device seals the title again under the current generation once the room moved on, so those who
   * joined by a later link (who hold no older key) read it too. Others leave it: only the creator may change it.
   */
  private async titleUnderCurrentKey(holding: RoomHolding, state: RoomState): Promise<RoomState | undefined> {
    const creator = entriesOf(state, 1).some((e) => e.admission === "creator" && e.key_id === holding.self.keyId);
    if (!creator || state.current_generation !== holding.highest || epochOfSealedValue(state.sealed_title) >= holding.highest) return;
    const title = await this.openTitle(state, holding);
    const keys = holding.generations.get(holding.highest);
    if (title === undefined || !keys) return;
    const sealed_title = await sealRoomValue(keys, { ...TITLE_PLACE, senderKeyId: holding.self.keyId }, title);
    const patch = { method: "PATCH", body: { sealed_title }, answer: roomResponseSchemas.room } as const;
    return apiFetch(ROOMS_API.state(state.id), patch).catch(() => undefined);
  }

  /** The keys of a generation this device just wrapped for itself, to seal the names of the new list under. */
  private async nextKeys(roomId: string, generation: number, wraps: RoomKeyWrap[], self: MemberKey): Promise<RoomKeys> {
    const own = wraps.find((w) => w.recipientKeyId === self.keyId) as RoomKeyWrap;
    return deriveRoomKeys(await openRoomKeyWrap(own, roomId, self, self.publicKey), roomId, generation);
  }

  private async view(state: RoomState, holding: RoomHolding | undefined, problem: string | undefined): Promise<RoomView> {
    const names = new Map<string, string>();
    const namesByKey = new Map<string, string>();
    const codes = new Map<string, string>();
    const generations = [...state.generations].sort((a, b) => a.generation - b.generation);
    for (const g of generations) {
      const keys = holding?.generations.get(g.generation);
      for (const e of g.entries) {
        codes.set(e.member_id, await memberSecurityCode(state.id, e.public_key));
        if (!keys) continue;
        const name = await openRoomValue(keys, namePlace(e.key_id), e.sealed_name).catch(() => undefined);
        if (name === undefined) continue;
        names.set(e.member_id, name);
        namesByKey.set(e.key_id, name);
      }
    }
    const highestKey = holding?.roomKeys.get(holding.highest);
    const fragment =
      holding && highestKey && state.current_generation === holding.highest
        ? roomFragment({ roomId: state.id, generation: holding.highest, roomKey: highestKey })
        : undefined;
    return {
      encrypted: true,
      roomId: state.id,
      state,
      holding,
      title: holding ? await this.openTitle(state, holding) : undefined,
      names,
      namesByKey,
      codes,
      fragment,
      problem,
    };
  }

  /** The title, sealed by its creator or a rename under some generation, by one of that generation's members. */
  private async openTitle(state: RoomState, holding: RoomHolding): Promise<string | undefined> {
    const generation = epochOfSealedValue(state.sealed_title);
    const keys = holding.generations.get(generation);
    if (!keys) return undefined;
    for (const e of entriesOf(state, generation)) {
      const place: RoomPlace = { ...TITLE_PLACE, senderKeyId: e.key_id };
      const title = await openRoomValue(keys, place, state.sealed_title).catch(() => undefined);
      if (title !== undefined) return title;
    }
    return undefined;
  }

  /** A text sealed under the room's current generation, or why it waits (in the core's words). */
  async sealText(roomId: string, message: SendMessageInput): Promise<{ body: SendRoomMessageInput } | { waiting: string | undefined }> {
    let holding = this.holdings.get(roomId);
    let state = this.states.get(roomId);
    if (!holding || !state) {
      const answer = await this.sync(roomId);
      if (!answer.encrypted) throw new Error("Not an encrypted discussion");
      holding = answer.holding;
      state = answer.state;
      if (!holding) return { waiting: answer.problem };
    }
    try {
      const sender = roomSender(holding, state.current_generation);
      const sealed = await sealRoomText(sender, message);
      return { body: { ...sealed, sender_key_id: sender.memberKeyId } };
    } catch (error) {
      if (error instanceof RoomError) return { waiting: error.message };
      throw error;
    }
  }

  /**
   * A file to the room sealed under its current generation (`sealRoomFile`): the upload's metadata (nothing in clear
   * but its kind, date and time) and the key its records are sealed under as tus reads them; or why it waits.
   */
  async sealFile(
    roomId: string,
    file: { id: string; date: string; time: string; name: string; type: string },
  ): Promise<{ metadata: Record<string, string>; sealed: { fileKey: CryptoKey; messageId: string } } | { waiting: string | undefined }> {
    if (!this.states.has(roomId) || !this.holdings.has(roomId)) await this.sync(roomId);
    const state = this.states.get(roomId);
    const holding = this.holdings.get(roomId);
    if (!state || !holding) return { waiting: undefined };
    let sender: RoomSender;
    try {
      sender = roomSender(holding, state.current_generation);
    } catch (error) {
      if (error instanceof RoomError) return { waiting: error.message };
      throw error;
    }
    const { fields, fileKey } = await sealRoomFile(sender, file);
    const metadata = {
      discussion_id: roomId,
      generation: String(fields.generation),
      sender_key_id: sender.memberKeyId,
      type: file.type,
      filename: fields.filename,
      preview: fields.preview,
      file_key: fields.file_key,
      message_id: file.id,
      date: file.date,
      time: file.time,
    };
    return { metadata, sealed: { fileKey, messageId: file.id } };
  }

  /** A file message of the room opened whole here: its name and its bytes (UndecryptableError or RoomError otherwise). */
  async openFile(roomId: string, message: RoomMessageFields): Promise<{ name: string; blob: Blob }> {
    const keys = this.holdings.get(roomId)?.generations.get(message.generation ?? 0);
    if (!keys || message.file_key === undefined || message.file_size === undefined || !message.file_url) {
      throw new RoomError("undecryptable");
    }
    const place = {
      messageId: message.id,
      type: message.type,
      date: message.date,
      time: message.time,
      senderKeyId: message.sender_key_id ?? "",
    };
    const opened = await this.openMessage(roomId, message);
    if (opened.state !== "opened") throw new RoomError("undecryptable");
    const fileKey = await openRoomFileKey(keys, place, message.file_key);
    const size = plainSizeOf(message.file_size);
    if (size === undefined) throw new RoomError("undecryptable");
    const type = message.type as SealedFileMessage["type"];
    const file: SealedFileMessage = {
      id: message.id,
      type,
      date: message.date,
      time: message.time,
      filename: message.filename,
      file_url: message.file_url,
      epoch: message.generation ?? 0,
      preview: message.preview ?? "",
      file_key: message.file_key,
      file_size: message.file_size,
      sender: "",
    };
    const contentType = contentTypeOf(opened.text, type);
    return { name: opened.text, blob: await plainBlob(file, { state: "opened", name: opened.text, size, contentType, fileKey }) };
  }

  /** Rooms read while this device held no key of them (its account's keys not found yet, or locked): to read again. */
  withoutKey(): string[] {
    return [...this.states.keys()].filter((roomId) => !this.holdings.has(roomId));
  }

  /** Whether a discussion is encrypted (asked once; a discussion in clear stays so). */
  async isEncrypted(roomId: string): Promise<boolean> {
    if (this.clear.has(roomId)) return false;
    return this.states.has(roomId) || (await this.sync(roomId)).encrypted;
  }

  /** The server said the room moved on (a generation, a leave): look again before sealing. */
  async catchUp(roomId: string): Promise<void> {
    await this.sync(roomId).catch(() => undefined);
  }

  /**
   * Posts a sealed text; 409 `generation_not_current` once: catch up and seal it again, same id. Null for a
   * discussion in clear, whose messages go as before.
   */
  async send(roomId: string, message: SendMessageInput): Promise<DiscussionMessage | { waiting: string | undefined } | null> {
    if (this.clear.has(roomId)) return null;
    if (!this.states.has(roomId) && !(await this.sync(roomId)).encrypted) return null;
    for (let attempt = 0; ; attempt++) {
      const sealed = await this.sealText(roomId, message);
      if ("waiting" in sealed) {
        // Perhaps a member's device made the next key since this device last looked: look once more.
        if (attempt > 0) return sealed;
        await this.catchUp(roomId);
        continue;
      }
      try {
        const { message: stored } = await api.post(DISCUSSIONS_API.messages(roomId), sealed.body, responseSchemas.discussionMessage);
        return stored;
      } catch (error) {
        if (attempt > 0 || !(error instanceof ApiError && error.code === ROOM_ERROR_CODES.generationNotCurrent)) throw error;
        await this.catchUp(roomId);
      }
    }
  }

  /** Opens a message of the room with the generations this device holds. */
  openMessage(roomId: string, message: RoomMessageFields): Promise<OpenedRoomMessage> {
    const holding = this.holdings.get(roomId);
    const held = holding?.generations ?? new Map<number, RoomKeys>();
    return openRoomMessage(held, {
      id: message.id,
      type: message.type,
      date: message.date,
      time: message.time,
      generation: message.generation ?? 0,
      senderKeyId: message.sender_key_id ?? "",
      content: message.content,
      filename: message.filename,
      preview: message.preview ?? "",
    });
  }

  /** The creator renames it: the title sealed under the current generation, by its member key. */
  rename(roomId: string, title: string): Promise<void> {
    return this.queued(roomId, async () => {
      const holding = this.holdings.get(roomId);
      const keys = holding?.generations.get(holding.highest);
      if (!holding || !keys) throw new NoRoomKeyError(NO_ROOM_KEY);
      const sealed_title = await sealRoomValue(keys, { ...TITLE_PLACE, senderKeyId: holding.self.keyId }, title.trim());
      const answer = { method: "PATCH", body: { sealed_title }, answer: roomResponseSchemas.room } as const;
      this.states.set(roomId, await apiFetch(ROOMS_API.state(roomId), answer));
    });
  }

  /** The creator turns joining by typed ID on or off. */
  async setIdJoining(roomId: string, on: boolean): Promise<void> {
    this.states.set(
      roomId,
      await apiFetch(ROOMS_API.state(roomId), { method: "PATCH", body: { id_joining: on }, answer: roomResponseSchemas.room }),
    );
  }

  /** The holding of a room, for an admission this device makes. */
  holdingOf(roomId: string): RoomHolding | undefined {
    return this.holdings.get(roomId);
  }

  /** The open requests to join by typed ID (members). */
  async requests(roomId: string): Promise<JoinRequestAnswer[]> {
    return (await api.get(ROOMS_API.requests(roomId), roomResponseSchemas.requests)).requests;
  }
}
