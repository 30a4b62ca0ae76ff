/**
 * What a device holds of the account's keys and what it may do with it (docs/protocol/encryption.md, "Keys"): the
 * kept pair and epochs, the store and server a platform gives AccountKeys (account-keys.ts), the status a sync
 * answers, and what a ready device seals with.
 */
import type { CreateEpochInput, KeysState } from "../keys.ts";
import { epochRolledBackText } from "../sealed-messages.ts";
import type { ListHead, SigningKey } from "./device-list.ts";
import type { Bytes } from "./encoding.ts";
import type { EpochKeys } from "./epoch-keys.ts";
import type { CryptoKeyPair } from "./key-types.ts";
import type { Sealer } from "./sealed-message.ts";

/**
 * The account's encryption state as this device saw it, kept with its keys (docs/protocol/encryption.md, "Encryption
 * state on each device"): when it first saw the account keyed (its own clock), the highest epoch it held or was told
 * of, and the keys it removed itself, which it never wraps for again whatever the server lists.
 */
export interface AccountState {
  keyedAt: number;
  highestEpoch: number;
  removedKeyIds: string[];
  /** The signed device list's head this device last verified: a later list must extend it. */
  listHead?: ListHead;
}

/** What a device keeps of one account: its own pair, for this session only, and the epochs it opened. */
export interface HeldKeys {
  keyId: string;
  pair: CryptoKeyPair;
  epochs: Map<number, EpochKeys>;
  /** Absent until the device first sees the account with an epoch. */
  account?: AccountState;
  /** This device's Ed25519 key for the signed device list; absent on a device keyed before it, until its next sync. */
  signing?: SigningKey;
}

export interface KeyStorage {
  load(): Promise<HeldKeys | undefined>;
  /** A new pair for a new session: replaces whatever was kept before, epochs included. */
  saveDevice(keyId: string, pair: CryptoKeyPair): Promise<void>;
  /** Keeps an opened epoch (the browser keeps its subkeys, the CLI the key itself) and answers its subkeys. */
  saveEpoch(epoch: number, epochKey: Bytes): Promise<EpochKeys>;
  /** Makes the pair this platform can keep (the CLI needs an extractable one to write it to its file). */
  generatePair(): Promise<CryptoKeyPair>;
  /** Keeps the account's encryption state beside the keys; a store without it keeps it for its process only. */
  saveAccount?(state: AccountState): Promise<void>;
  /** Keeps this device's signing key beside its pair (the 32-byte Ed25519 secret). */
  saveSigningKey?(signing: SigningKey): Promise<void>;
}

export type CreateEpochAnswer = { ok: true; state: KeysState } | { ok: false; code: string };

export interface KeysServer {
  state(): Promise<KeysState>;
  setDeviceKey(publicKey: string): Promise<void>;
  createEpoch(body: CreateEpochInput): Promise<CreateEpochAnswer>;
}

export type KeyStatus =
  /**
   * Holds the account's current epoch: reads and sends. `rolledBack` is the highest epoch this device saw when the
   * server now calls a lower one current: the device then refuses to seal (`sealerOf`).
   */
  | { state: "ready"; epoch: number; sessionId: string; keys: HeldKeys; rolledBack?: number; listProblem?: string }
  /** Signed in, but no device has handed this one the current epoch yet. */
  | { state: "locked"; epoch: number; sessionId: string; keys: HeldKeys; recoveryCode: boolean; listProblem?: string }
  /** The server knows a key for this session that this device no longer has (its storage was cleared). */
  | { state: "lost"; sessionId: string };

/** Refused to seal: the server calls current an epoch below one this device holds or saw. */
export class EpochRollbackError extends Error {}

/**
 * What a ready device seals with, or undefined when it is not ready. Throws `EpochRollbackError` (its message the
 * sentence to show) when the server's current epoch is lower than the highest one this device holds or saw.
 */
export function sealerOf(userId: string, status: KeyStatus): Sealer | undefined {
  if (status.state !== "ready") return undefined;
  if (status.rolledBack !== undefined) throw new EpochRollbackError(epochRolledBackText(status.epoch, status.rolledBack));
  const keys = status.keys.epochs.get(status.epoch);
  return keys && { userId, sessionId: status.sessionId, epoch: status.epoch, keys };
}

/** When the account was first seen keyed: from then on a message with no epoch was not sent by the person's devices. */
export const keyedSince = (status: { state: string; keys?: HeldKeys }): number | undefined => status.keys?.account?.keyedAt;
