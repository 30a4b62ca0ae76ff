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
  type Bytes,
  type CryptoKey,
  createRoom,
  deriveRoomKeys,
  entryBody,
  joinByLink,
  keyForRoom,
  makeMemberSeed,
  memberKeyOf,
  type OpenedRoomMessage,
  openRoomMessage,
  RoomError,
  type RoomHolding,
  type RoomKeys,
  type RoomLinkKey,
  type RoomSender,
  roomSender,
  sealedRoomMessageOf,
  sealRoomFile,
  sealRoomText,
  taggedAt,
} from "@daysync/shared/crypto";
import { ApiError, api, apiFetch } from "../api-client.ts";
import { isNetworkError } from "../api-errors.ts";
import { type DeviceKeys, heldEpochsOf } from "./device-keys.ts";
import { rotateIfSomeoneLeft } from "./room-rotation.ts";
import { entriesOf, holdingFromOwn, sealOwnValues, takeGenerations } from "./room-state.ts";
import { openTitle, type RoomView, roomView, sealName, sealTitle } from "./room-values.ts";

/** This device cannot do it for want of a key (its account's, or the room's): the sentence says which. */
export class NoRoomKeyError extends Error {
  override name = "NoRoomKeyError";
}

export const NO_ROOM_KEY = "This device does not hold this discussion's key yet, so it cannot do this. Try again in a moment.";

export type { RoomView };

export type RoomAnswer = RoomView | { encrypted: false };

const isEncryptedRoomRefusal = (error: unknown) => error instanceof ApiError && error.code === ROOM_ERROR_CODES.encryptedRoom;

/**
 * Where the last state the server sent of each room is kept for a start without the network (the offline copy,
 * app/offline-kinds.ts): it holds sealed values only, opened with the account's keys as when it came.
 */
export interface KeptRoomStates {
  get(roomId: string): RoomState | undefined;
  set(state: RoomState): void;
}

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
    private readonly kept?: KeptRoomStates,
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
    return status.keys.epochs.has(status.epoch) ? { epoch: status.epoch, epochs: status.keys.epochs } : undefined;
  }

  /** The holding the account's own values give this device (none while it is locked or holds no key of the room). */
  private async ownHolding(state: RoomState): Promise<RoomHolding | undefined> {
    // Every epoch this device holds, also when it could not reach the server to know the current one (offline).
    const epochs = heldEpochsOf(await this.keys.knownStatus());
    return epochs?.size ? holdingFromOwn({ userId: this.userId, epochs }, state) : undefined;
  }

  /** The member seed and room keys sealed for the account's own devices, under its current epoch. */
  private async ownValues(roomId: string, seed: Bytes | undefined, roomKeys: ReadonlyMap<number, Bytes>) {
    const account = await this.account();
    if (!account) throw new NoRoomKeyError(SEALED_TEXT.approveToSend);
    return sealOwnValues({ userId: this.userId, ...account }, roomId, seed, roomKeys);
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
        sealed_title: await sealTitle(keys, self.keyId, title.trim()),
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
      const kept = isNetworkError(error) ? (this.states.get(roomId) ?? this.kept?.get(roomId)) : undefined;
      if (kept) return this.offlineView(kept);
      throw error;
    }
    this.states.set(roomId, state);
    this.kept?.set(state);
    let problem: string | undefined;
    let holding = this.holdings.get(roomId);
    try {
      holding ??= await this.ownHolding(state);
      if (holding) {
        this.holdings.set(roomId, holding);
        const before = holding.highest;
        await takeGenerations(holding, state);
        if (holding.highest > before) await this.keepOwn(holding, state);
        if (holding.highest !== before) this.changed(roomId);
        if (rotations < 2 && (await rotateIfSomeoneLeft(holding, state))) return this.syncNow(roomId, rotations + 1);
        state = (await this.titleUnderCurrentKey(holding, state)) ?? state;
      }
    } catch (error) {
      if (!(error instanceof RoomError)) throw error;
      problem = error.message;
    }
    return roomView(state, holding, problem);
  }

  /** Without the network: the room as last seen, opened with what this device holds; nothing is written. */
  private async offlineView(state: RoomState): Promise<RoomView> {
    this.states.set(state.id, state);
    let holding = this.holdings.get(state.id);
    try {
      holding ??= await this.ownHolding(state);
      if (holding) {
        this.holdings.set(state.id, holding);
        await takeGenerations(holding, state);
      }
    } catch (error) {
      if (!(error instanceof RoomError)) throw error;
      return roomView(state, holding, error.message);
    }
    return roomView(state, holding, undefined);
  }

  /** The room keys this device took, sealed for the account's other devices (they then read without the wraps' steps). */
  private async keepOwn(holding: RoomHolding, state: RoomState) {
    const kept = new Set(state.own.map((o) => o.generation));
    const missing = new Map([...holding.roomKeys].filter(([g]) => !kept.has(g)));
    if (missing.size === 0 || !(await this.account())) return;
    const values = await this.ownValues(state.id, undefined, missing);
    await api.put(ROOMS_API.own(state.id), { values }, roomResponseSchemas.room).catch(() => undefined);
  }

  /**
   * The creator's device seals the title again under the current generation once the room moved on, so those who
   * joined by a later link (who hold no older key) read it too. Others leave it: only the creator may change it.
   */
  private async titleUnderCurrentKey(holding: RoomHolding, state: RoomState): Promise<RoomState | undefined> {
    const creator = entriesOf(state, 1).some((e) => e.admission === "creator" && e.key_id === holding.self.keyId);
    if (!creator || state.current_generation !== holding.highest || epochOfSealedValue(state.sealed_title) >= holding.highest) return;
    const title = await openTitle(state, holding);
    const keys = holding.generations.get(holding.highest);
    if (title === undefined || !keys) return;
    const sealed_title = await sealTitle(keys, holding.self.keyId, title);
    const patch = { method: "PATCH", body: { sealed_title }, answer: roomResponseSchemas.room } as const;
    return apiFetch(ROOMS_API.state(state.id), patch).catch(() => undefined);
  }

  /** This device's sender under the room's current generation, or why it waits (in the core's words). */
  private async currentSender(roomId: string): Promise<{ sender: RoomSender } | { waiting: string | undefined }> {
    let holding = this.holdings.get(roomId);
    let state = this.states.get(roomId);
    if (!holding || !state) {
      const answer = await this.sync(roomId);
      if (!answer.encrypted) throw new Error("Not an encrypted discussion");
      ({ holding, state } = answer);
      if (!holding) return { waiting: answer.problem };
    }
    try {
      return { sender: roomSender(holding, state.current_generation) };
    } catch (error) {
      if (error instanceof RoomError) return { waiting: error.message };
      throw error;
    }
  }

  /** A text sealed under the room's current generation, or why it waits. */
  async sealText(roomId: string, message: SendMessageInput): Promise<{ body: SendRoomMessageInput } | { waiting: string | undefined }> {
    const current = await this.currentSender(roomId);
    if ("waiting" in current) return current;
    const sealed = await sealRoomText(current.sender, message);
    return { body: { ...sealed, sender_key_id: current.sender.memberKeyId } };
  }

  /**
   * A file to the room sealed under its current generation (`sealRoomFile`): the upload's metadata (nothing in clear
   * but its kind, date and time) and the key its records are sealed under as tus reads them; or why it waits.
   */
  async sealFile(
    roomId: string,
    file: { id: string; date: string; time: string; name: string; type: string },
  ): Promise<{ metadata: Record<string, string>; sealed: { fileKey: CryptoKey; messageId: string } } | { waiting: string | undefined }> {
    const current = await this.currentSender(roomId);
    if ("waiting" in current) return current;
    const { sender } = current;
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
  openMessage(roomId: string, message: Parameters<typeof sealedRoomMessageOf>[0]): Promise<OpenedRoomMessage> {
    const holding = this.holdings.get(roomId);
    const held = holding?.generations ?? new Map<number, RoomKeys>();
    return openRoomMessage(held, sealedRoomMessageOf(message));
  }

  /** The creator renames it: the title sealed under the current generation, by its member key. */
  rename(roomId: string, title: string): Promise<void> {
    return this.queued(roomId, async () => {
      const holding = this.holdings.get(roomId);
      const keys = holding?.generations.get(holding.highest);
      if (!holding || !keys) throw new NoRoomKeyError(NO_ROOM_KEY);
      const sealed_title = await sealTitle(keys, holding.self.keyId, title.trim());
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
