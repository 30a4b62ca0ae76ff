/**
 * Reading a room's keys from its state (docs/protocol/encryption.md, "Encrypted discussions"), in the page and the
 * service worker alike: the member seed and room keys the account's own devices keep sealed (room-own.ts), opened
 * with the account's epochs, then each later generation taken from the wraps addressed to the member key. Nothing
 * here writes to the server: the page's `Rooms` keeps what it took (rooms.ts), the worker only reads.
 */
import { API, epochOfSealedValue, ROOMS_API, type RoomState, responseSchemas, roomResponseSchemas } from "@daysync/shared";
import {
  acceptRotation,
  type Bytes,
  emptyHolding,
  type HeldEpochs,
  hold,
  holdOlder,
  memberKeyOf,
  openFromOwnDevices,
  type RoomHolding,
  sawLeave,
  sealForOwnDevices,
  taggedAt,
  wrapOf,
} from "@daysync/shared/crypto";
import { apiRequestOf } from "../api-client.ts";

/** The account whose own devices' values are read: its id and the epochs this device holds. */
export interface OwnAccount {
  userId: string;
  epochs: HeldEpochs;
}

export const entriesOf = (state: RoomState, generation: number) =>
  state.generations.find((g) => g.generation === generation)?.entries ?? [];

/** Opens one value the account's devices sealed; undefined when this device does not hold its epoch or it does not open. */
export async function openOwn(account: OwnAccount, roomId: string, value: string, what: "member-seed" | "room-key", generation: number) {
  const accountEpoch = epochOfSealedValue(value);
  const epochKeys = account.epochs.get(accountEpoch);
  if (!epochKeys) return undefined;
  const place = { userId: account.userId, accountEpoch, roomId, what, generation };
  return openFromOwnDevices(epochKeys, place, value).catch(() => undefined);
}

/** The member seed (when given) and room keys sealed for the account's own devices under `epoch`. */
export async function sealOwnValues(
  account: OwnAccount & { epoch: number },
  roomId: string,
  seed: Bytes | undefined,
  roomKeys: ReadonlyMap<number, Bytes>,
): Promise<{ generation: number; value: string }[]> {
  const current = account.epochs.get(account.epoch);
  if (!current) throw new Error("The account's current epoch is not held here");
  const place = { userId: account.userId, accountEpoch: account.epoch, roomId };
  const values: { generation: number; value: string }[] = [];
  if (seed) values.push({ generation: 0, value: await sealForOwnDevices(current, { ...place, what: "member-seed", generation: 0 }, seed) });
  for (const [generation, key] of roomKeys) {
    values.push({ generation, value: await sealForOwnDevices(current, { ...place, what: "room-key", generation }, key) });
  }
  return values;
}

/** A holding rebuilt from the values the account's devices keep: the member seed, then each room key. */
export async function holdingFromOwn(account: OwnAccount, state: RoomState): Promise<RoomHolding | undefined> {
  const seedValue = state.own.find((o) => o.generation === 0);
  const seed = seedValue && (await openOwn(account, state.id, seedValue.value, "member-seed", 0));
  if (!seed) return undefined;
  const self = await memberKeyOf(seed);
  const holding = emptyHolding(state.id, self);
  const own = state.own.filter((o) => o.generation > 0).sort((a, b) => a.generation - b.generation);
  for (const { generation, value } of own) {
    const key = await openOwn(account, state.id, value, "room-key", generation);
    if (!key) continue;
    if (entriesOf(state, generation).some((e) => e.key_id === self.keyId))
      await hold(holding, generation, key, taggedAt(state, generation));
    else await holdOlder(holding, generation, key);
  }
  return holding;
}

/** The newest list of the generation held checked again (members joined), then each later one taken in order. */
export async function takeGenerations(holding: RoomHolding, state: RoomState): Promise<void> {
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

/** GET through the API's target with its session, read by `schema`; undefined for anything else (the worker's reads). */
async function read<T>(path: string, schema: { safeParse(data: unknown): { success: true; data: T } | { success: false } }) {
  const request = apiRequestOf(path);
  const res = await fetch(request.url, { credentials: request.credentials, headers: { accept: "application/json", ...request.headers } });
  if (!res.ok) return undefined;
  const parsed = schema.safeParse(await res.json().catch(() => null));
  return parsed.success ? parsed.data : undefined;
}

/** The signed-in user's id, as the server knows the session. */
export async function signedInUser(): Promise<string | undefined> {
  return (await read(API.me, responseSchemas.user))?.user.id;
}

/**
 * A room read afresh with the session (the service worker, which keeps nothing between events): its state, and this
 * device's holding of it (undefined when the account's values do not open here: locked, or no key); undefined when the
 * room cannot be read. A holding that is refused (RoomError) is thrown.
 */
export async function readRoom(account: OwnAccount, roomId: string) {
  const state = await read(ROOMS_API.state(roomId), roomResponseSchemas.room);
  if (!state) return undefined;
  const holding = await holdingFromOwn(account, state);
  if (holding) await takeGenerations(holding, state);
  return { state, holding };
}
