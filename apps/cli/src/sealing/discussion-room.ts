/**
 * This terminal's side of an encrypted discussion (issue 45; docs/protocol/encryption.md, "Encrypted discussions"):
 * joining with a link's key, and, for `send --discussion` and `watch --discussion`, the room as the server holds it
 * for this account. Nothing of a room is kept on this terminal: the member seed and each room key are sealed for the
 * account's own devices (room-own.ts) and stored with the server, so a restart, or another signed-in terminal of the
 * account, opens them again with the account's epochs; every generation is verified again on each load.
 */
import {
  DISCUSSIONS_API,
  type DiscussionMessage,
  epochOfSealedValue,
  normalizePublicId,
  ROOM_ERROR_CODES,
  ROOMS_API,
  type RoomState,
  responseSchemas,
  roomResponseSchemas,
  type SendRoomMessageInput,
} from "@daysync/shared";
import {
  acceptRotation,
  type Bytes,
  deriveRoomKeys,
  emptyHolding,
  entryBody,
  hold,
  holdOlder,
  joinByLink,
  keyForRoom,
  type MemberKey,
  makeMemberSeed,
  memberKeyOf,
  namePlace,
  type OwnPlace,
  openFromOwnDevices,
  openRoomMessage,
  openRoomValue,
  parseRoomLink,
  RoomError,
  type RoomHolding,
  type RoomLinkKey,
  roomSender,
  sawLeave,
  sealedRoomMessageOf,
  sealForOwnDevices,
  sealRoomText,
  taggedAt,
  wrapOf,
} from "@daysync/shared/crypto";
import { type ApiClient, ApiError } from "../api-client.ts";
import { CliError, EXIT, usageError } from "../errors.ts";
import { deviceLocked, type MessageKeys } from "./message-keys.ts";

/** A refusal of the crypto core in its own words; a damaged link is a usage error (exit 2), like any bad argument. */
export function roomFailure(error: unknown): unknown {
  if (!(error instanceof RoomError)) return error;
  if (error.reason === "linkDamaged") return usageError(error.message);
  return new CliError(error.message, error.reason === "undecryptable" ? EXIT.undecryptable : EXIT.failure);
}

/** Runs `step`, a RoomError turned into the command line's error. */
async function refused<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw roomFailure(error);
  }
}

/** A share link's public id (from its path) and key (from its fragment); the core's "damaged" words otherwise. */
export function parseDiscussionLink(link: string): { publicId: string; key: RoomLinkKey } {
  try {
    const key = parseRoomLink(link);
    const path = link.slice(0, link.indexOf("#"));
    const publicId = /\/discussions\/join\/([^/?#]+)\/?$/.exec(path)?.[1];
    if (!publicId) throw new RoomError("linkDamaged");
    return { publicId: decodeURIComponent(publicId), key };
  } catch (error) {
    // A path that does not decode (a stray %) is as damaged as a cut fragment.
    throw roomFailure(error instanceof RoomError ? error : new RoomError("linkDamaged", { cause: error }));
  }
}

const generationOf = (state: RoomState, generation: number) => state.generations.find((g) => g.generation === generation);

/** What this account's devices seal for each other: the member seed and room keys under the current account epoch. */
async function ownValues(keys: MessageKeys, roomId: string, secrets: Array<{ generation: number; secret: Bytes }>) {
  const sealer = keys.sealer();
  return Promise.all(
    secrets.map(async ({ generation, secret }) => {
      const place: OwnPlace = {
        userId: keys.userId,
        accountEpoch: sealer.epoch,
        roomId,
        what: generation === 0 ? "member-seed" : "room-key",
        generation,
      };
      return { generation, value: await sealForOwnDevices(sealer.keys, place, secret) };
    }),
  );
}

/**
 * The highest generation this terminal took of each discussion, kept between runs: the server holds the membership,
 * so without it a server that withheld a rotation's values could have a later run seal under a key someone who left holds.
 */
export interface RoomMemory {
  highest(roomId: string): number | undefined;
  saveHighest(roomId: string, generation: number): void;
}

/** One discussion as this terminal reads and sends in it: its state from the server and the generations verified. */
export class DiscussionRoom {
  private constructor(
    private readonly api: ApiClient,
    private readonly keys: MessageKeys,
    private readonly memory: RoomMemory,
    public state: RoomState,
    readonly holding: RoomHolding,
  ) {}

  /** An older generation than this terminal took before is refused ("olderKey"); a higher one is remembered. */
  private remember(): void {
    const before = this.memory.highest(this.id) ?? 0;
    if (this.holding.highest < before) throw new RoomError("olderKey");
    if (this.holding.highest > before) this.memory.saveHighest(this.id, this.holding.highest);
  }

  get id(): string {
    return this.state.id;
  }

  get publicId(): string {
    return this.state.public_id;
  }

  /**
   * Joins with a link's key: checks the discussion the server names for the public id is the link's room, makes
   * this membership's key, posts its entry (its display name sealed) with the seed and room key sealed for the
   * account's devices, and holds the generation once the server's list names it.
   */
  static async join(api: ApiClient, keys: MessageKeys, memory: RoomMemory, link: { publicId: string; key: RoomLinkKey }, name: string) {
    keys.sealer(); // A terminal that cannot seal for the account's devices says so before anything is posted.
    const lookup = (await api.json("GET", ROOMS_API.lookup(link.publicId), roomResponseSchemas.lookup)).body;
    if (!lookup.encrypted) {
      throw new CliError(
        "This discussion is not end-to-end encrypted, so a link with a key does not belong to it. Ask for the link again.",
      );
    }
    return refused(async () => {
      const key = keyForRoom(link.key, lookup.id);
      const seed = makeMemberSeed();
      const self = await memberKeyOf(seed);
      const { entry, holdWith } = await joinByLink(key, self, name);
      const roomKeys = await deriveRoomKeys(key.roomKey, key.roomId, key.generation);
      const body = {
        generation: key.generation,
        entry: await entryBody(roomKeys, entry, name),
        own: await ownValues(keys, key.roomId, [
          { generation: 0, secret: seed },
          { generation: key.generation, secret: key.roomKey },
        ]),
      };
      const { body: state, res } = await api.json("POST", ROOMS_API.joinByLink(link.publicId), roomResponseSchemas.room, body);
      // 200: this account was a member already; its own values (another seed) stand, and are what is opened.
      if (res.status !== 201) return { room: await DiscussionRoom.fromState(api, keys, memory, state), joined: false };
      const holding = await holdWith(taggedAt(state, key.generation));
      const room = new DiscussionRoom(api, keys, memory, state, holding);
      room.noteLeaves();
      room.remember();
      return { room, joined: true };
    });
  }

  /**
   * The discussion `named` (its ID as shown or typed, its share link, or its room id) as this account's membership
   * holds it; one this account is not in says how to join it.
   */
  static async load(api: ApiClient, keys: MessageKeys, memory: RoomMemory, named: string): Promise<DiscussionRoom> {
    const roomId = await roomIdOf(api, named);
    let state: RoomState;
    try {
      state = (await api.json("GET", ROOMS_API.state(roomId), roomResponseSchemas.room)).body;
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) throw error;
      throw notMember(named);
    }
    return refused(() => DiscussionRoom.fromState(api, keys, memory, state));
  }

  private static async fromState(api: ApiClient, keys: MessageKeys, memory: RoomMemory, state: RoomState): Promise<DiscussionRoom> {
    const opened = new Map<number, Bytes>();
    for (const own of state.own) {
      const accountEpoch = epochOfSealedValue(own.value);
      const account = keys.epochs.get(accountEpoch);
      if (!account) throw deviceLocked();
      const what = own.generation === 0 ? "member-seed" : "room-key";
      const place: OwnPlace = { userId: keys.userId, accountEpoch, roomId: state.id, what, generation: own.generation };
      opened.set(own.generation, await refusedOpen(() => openFromOwnDevices(account, place, own.value)));
    }
    const seed = opened.get(0);
    if (!seed) throw new CliError("This account holds no key of this discussion's membership, so this terminal cannot read it.");
    const self = await memberKeyOf(seed);
    const holding = emptyHolding(state.id, self);
    for (const [generation, roomKey] of [...opened].filter(([g]) => g > 0).sort(([a], [b]) => a - b)) {
      const entries = taggedAt(state, generation);
      if (entries.some((e) => e.keyId === self.keyId)) await hold(holding, generation, roomKey, entries);
      else await holdOlder(holding, generation, roomKey);
    }
    if (holding.highest === 0) throw new RoomError("keyNotVerified");
    const room = new DiscussionRoom(api, keys, memory, state, holding);
    await room.followRotations();
    return room;
  }

  /** Reads the room again and takes the generations rotated since, as the core allows. */
  async refresh(): Promise<void> {
    await refused(() => this.reread());
  }

  /** `refresh` with the core's RoomError as it is. */
  private async reread(): Promise<void> {
    this.state = (await this.api.json("GET", ROOMS_API.state(this.id), roomResponseSchemas.room)).body;
    await this.followRotations();
  }

  /**
   * Each generation after the highest held, in order, from its wrap for this membership's key (`acceptRotation`
   * refuses what a member did not make); each taken one is sealed for the account's devices. Who left before a
   * rotation is noted first (they are not in its list); who left since, after: nothing is sealed under a generation
   * that still lists them.
   */
  private async followRotations(): Promise<void> {
    const taken: Array<{ generation: number; secret: Bytes }> = [];
    while (this.state.current_generation > this.holding.highest) {
      const next = this.holding.highest + 1;
      const nextEntries = taggedAt(this.state, next);
      for (const entry of generationOf(this.state, this.holding.highest)?.entries ?? []) {
        if (entry.left && !nextEntries.some((e) => e.keyId === entry.key_id)) sawLeave(this.holding, entry.key_id);
      }
      const wraps = this.state.wraps.filter((w) => w.generation === next).map(wrapOf);
      const own = wraps.find((w) => w.recipientKeyId === this.holding.self.keyId);
      if (!own) break; // Not wrapped for this membership yet: what is sealed under it shows as locked.
      await acceptRotation(this.holding, { generation: next, senderKeyId: own.senderKeyId, wraps, roster: nextEntries });
      const secret = this.holding.roomKeys.get(next);
      if (secret) taken.push({ generation: next, secret });
    }
    this.noteLeaves();
    this.remember();
    if (taken.length > 0) {
      const values = await ownValues(this.keys, this.id, taken);
      this.state = (await this.api.json("PUT", ROOMS_API.own(this.id), roomResponseSchemas.room, { values })).body;
    }
  }

  private noteLeaves(): void {
    for (const entry of generationOf(this.state, this.holding.highest)?.entries ?? []) {
      if (entry.left) sawLeave(this.holding, entry.key_id);
    }
  }

  /** The title, opened, or why it is not: sealed under a generation this membership does not hold, or not opening. */
  async title(): Promise<{ text: string } | { error: string }> {
    const generation = epochOfSealedValue(this.state.sealed_title);
    const keys = this.holding.generations.get(generation);
    if (!keys) return { error: `sealed under key generation ${generation}, which this terminal does not hold` };
    // Sealed by whoever named it (the creator, or a rename): each member's key id is tried as the sender.
    for (const generationEntries of this.state.generations) {
      for (const entry of generationEntries.entries) {
        const place = { ...namePlace(entry.key_id), field: "title" as const };
        const title = await openRoomValue(keys, place, this.state.sealed_title).catch(() => undefined);
        if (title !== undefined) return { text: title };
      }
    }
    return { error: new RoomError("undecryptable").message };
  }

  /** A member's display name as sealed in its entry of `generation`; undefined when it does not open here. */
  async memberName(keyId: string, generation: number): Promise<string | undefined> {
    const keys = this.holding.generations.get(generation);
    const entry = generationOf(this.state, generation)?.entries.find((e) => e.key_id === keyId);
    if (!keys || !entry) return undefined;
    return openRoomValue(keys, namePlace(keyId), entry.sealed_name).catch(() => undefined);
  }

  /** The member key this terminal's account holds the discussion with. */
  get self(): MemberKey {
    return this.holding.self;
  }

  /** Seals a text under the current generation and posts it (same id each try); a stale generation is caught up once. */
  async sendText(message: { id: string; date: string; time: string; content: string }): Promise<DiscussionMessage> {
    for (let attempt = 1; ; attempt++) {
      try {
        const sender = await refused(async () => roomSender(this.holding, this.state.current_generation));
        const sealed = await sealRoomText(sender, message);
        const body: SendRoomMessageInput = { ...sealed, sender_key_id: sender.memberKeyId };
        return (await this.api.json("POST", DISCUSSIONS_API.messages(this.id), responseSchemas.discussionMessage, body)).body.message;
      } catch (error) {
        const stale = error instanceof ApiError && error.code === ROOM_ERROR_CODES.generationNotCurrent;
        if (!stale || attempt >= 2) throw error;
        await this.refresh();
      }
    }
  }

  /** A message of this discussion opened: its text (or a file's name), or why not. */
  async open(message: DiscussionMessage): Promise<{ text: string } | { error: string }> {
    if (message.generation === undefined) return { error: "This message was not sealed in an encrypted discussion." };
    try {
      // A message under a generation not held yet: the rotation that made it is taken first, or refused in the core's words.
      if (message.generation > this.holding.highest) await this.reread();
      const opened = await openRoomMessage(this.holding.generations, sealedRoomMessageOf(message));
      if (opened.state === "locked") {
        return { error: `This message is sealed under key generation ${opened.generation}, which this terminal does not hold.` };
      }
      return { text: opened.text };
    } catch (error) {
      if (error instanceof RoomError) return { error: error.message };
      throw error;
    }
  }
}

const ROOM_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A room id from what names a discussion: a room id as it is; a link's room, checked against the server's; an ID looked up. */
/**
 * A room id from what names a discussion: a room id as it is; an ID or a link's, among this account's discussions
 * (not the join look-up, which is rate-limited for people typing IDs), a link's key checked against that room.
 */
async function roomIdOf(api: ApiClient, named: string): Promise<string> {
  if (ROOM_ID.test(named)) return named;
  const link = named.includes("#") ? parseDiscussionLink(named) : undefined;
  const publicId = normalizePublicId(link?.publicId ?? named);
  if (!publicId) throw usageError(`"${named}" is not a discussion's ID (ABCDE-FGHJK) or its link.`);
  const { discussions } = await api.get(DISCUSSIONS_API.list, responseSchemas.discussions);
  const found = discussions.find((d) => d.public_id === publicId);
  if (!found) throw notMember(named);
  if (link) await refused(async () => keyForRoom(link.key, found.id));
  return found.id;
}

const notMember = (named: string) =>
  new CliError(
    `No such discussion. This account is not in discussion ${named}: it ended, you left it, or it was never joined. Join it with: daysync discussion join 'LINK'`,
    EXIT.notFound,
  );

async function refusedOpen<T>(open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch {
    throw new CliError(
      "This account's key of this discussion did not open on this terminal: it may have been sealed under an account key this terminal has not been given. Approve this terminal from another device.",
      EXIT.locked,
    );
  }
}
