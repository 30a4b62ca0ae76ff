/**
 * The recovery code's two uses (docs/protocol/encryption.md, "Recovery code"), the same in the browser and the CLI.
 *
 * Making it: a device holding the current epoch seals that epoch's key into the anchor, wraps every epoch it holds for
 * the recovery key (auth mode, from its own key) and tags the recovery key's row in the current roster. Once the
 * code exists, the recovery key is among the current epoch's holders, so every rotation wraps the next epoch for it.
 *
 * Using it, on a locked device: the code opens the anchor; the recovery key's row in the anchor epoch's roster must
 * carry a valid tag under that epoch; then, by the chain rule, each wrap for the recovery key opens only if the
 * device that sealed it is listed, with a valid tag, in the roster of an epoch already opened. The device seals what
 * it opened again for itself, tags its own row in the current roster (added by the recovery key) and sends both with
 * the proof the code gives; it keeps the epochs only once the server took them.
 *
 * The recovery key is also a member of the signed device list (added by the device that made the code, removed when
 * the code is replaced or removed): its Ed25519 key, derived from the code, signs the unlocked device into the list.
 */

import type { RecoveryState, RecoveryUnlockInput, SetRecoveryInput, StoredRecovery } from "../key-recovery.ts";
import type { KeysState, StoredRosterEntry } from "../keys.ts";
import { RECOVERY_TEXT } from "../ui-text.ts";
import { rosterRowOf, trustedSender } from "./chain-rule.ts";
import { exportPublicKey, importPublicKey, keyId } from "./device-key.ts";
import type { ListMember, SigningKey } from "./device-list.ts";
import { type Bytes, sha256, toBase64Url } from "./encoding.ts";
import { deriveEpochKeys, type EpochKeys } from "./epoch-keys.ts";
import { UndecryptableError } from "./errors.ts";
import type { HeldKeys, KeyStorage } from "./held-keys.ts";
import type { CryptoKeyPair } from "./key-types.ts";
import { deriveRecoveryKeys, openRecoveryAnchor, parseRecoveryCode, sealRecoveryAnchor } from "./recovery-code.ts";
import { type RosterRow, rosterTag, verifyRosterRow } from "./roster.ts";
import { openEpochKey, wrapEpochKey } from "./wraps.ts";

/** The routes of /api/keys/recovery and the device's key state, as each platform reaches them. */
export interface RecoveryServer {
  state(): Promise<KeysState>;
  recovery(): Promise<RecoveryState>;
  save(body: SetRecoveryInput): Promise<RecoveryState>;
  unlock(body: RecoveryUnlockInput): Promise<KeysState>;
}

/** Why a code that reads well could not unlock this device; the message is the sentence to show. */
export class RecoveryRefusedError extends Error {
  override name = "RecoveryRefusedError";
  constructor(readonly reason: Exclude<keyof typeof RECOVERY_TEXT, "typo">) {
    super(RECOVERY_TEXT[reason]);
  }
}

const proofHash = async (proof: Bytes) => toBase64Url(await sha256(proof));

/**
 * The body of PUT /api/keys/recovery for `code`, made by a device holding the current epoch: it opens its own wraps
 * again (a device keeps only the subkeys) and seals each epoch key for the recovery key, the current one also into
 * the anchor. Throws when this device does not hold the current epoch.
 */
export async function makeRecoveryKit(userId: string, held: HeldKeys, state: KeysState, code: string): Promise<SetRecoveryInput> {
  const current = state.epoch;
  const currentKeys = current === null ? undefined : held.epochs.get(current);
  if (current === null || !currentKeys) throw new Error("This device does not hold the account's current key");
  const recovery = await deriveRecoveryKeys(code, userId);
  const publicKey = await exportPublicKey(recovery.keyPair.publicKey);
  const recoveryKeyId = await keyId(publicKey);
  const wraps: SetRecoveryInput["wraps"] = [];
  let anchor: string | undefined;
  for (const own of state.wraps) {
    if (!held.epochs.has(own.epoch) || own.epoch > current) continue;
    const sender = await trustedSender(userId, held, own, state.roster);
    if (!sender) continue;
    const place = { userId, epoch: own.epoch };
    // The raw key lives only for this re-wrap.
    const epochKey = await openEpochKey(own, place, held.pair, { mode: "auth", senderPublicKey: sender });
    const wrap = await wrapEpochKey(epochKey, place, recovery.keyPair.publicKey, { mode: "auth", senderKeyPair: held.pair });
    if (own.epoch === current) anchor = await sealRecoveryAnchor(recovery.anchorKey, place, epochKey);
    epochKey.fill(0);
    wraps.push({ epoch: own.epoch, recipient_key_id: recoveryKeyId, sender_key_id: held.keyId, mode: "auth", ...wrap });
  }
  if (!anchor) throw new UndecryptableError("This device's own key for the current epoch");
  const row: RosterRow = { userId, epoch: current, keyId: recoveryKeyId, publicKey, kind: "recovery", addedByKeyId: held.keyId };
  return {
    public_key: publicKey,
    anchor_epoch: current,
    anchor,
    proof_hash: await proofHash(recovery.proof),
    roster: {
      epoch: current,
      key_id: recoveryKeyId,
      public_key: publicKey,
      kind: "recovery",
      added_by_key_id: held.keyId,
      tag: await rosterTag(currentKeys.roster, row),
    },
    wraps,
  };
}

/** The recovery key as a member of the signed device list, for the device that made `code` to add. */
export async function recoveryMember(userId: string, code: string): Promise<ListMember> {
  const recovery = await deriveRecoveryKeys(code, userId);
  const publicKey = await exportPublicKey(recovery.keyPair.publicKey);
  return { keyId: await keyId(publicKey), publicKey, signingKey: recovery.signing.publicKey };
}

/** What a device unlocked with the code signs its own addition to the device list with. */
export interface RecoverySigner {
  keyId: string;
  signing: SigningKey;
}

/** Whether `roster` lists the key, of that kind, with a valid tag under the epoch's roster key. */
async function vouched(userId: string, roster: StoredRosterEntry[], epoch: number, keys: EpochKeys, key: string, kind: RosterRow["kind"]) {
  const entry = roster.find((row) => row.epoch === epoch && row.key_id === key && row.kind === kind);
  if (!entry || !(await verifyRosterRow(keys.roster, rosterRowOf(userId, entry), entry.tag))) return undefined;
  return entry;
}

/** Opens the anchor, checks the recovery key's row, and follows the chain rule through the recovery key's wraps. */
async function openRecovered(userId: string, stored: StoredRecovery, recoveryPair: CryptoKeyPair, anchorEpochKey: Bytes) {
  const opened = new Map<number, { key: Bytes; keys: EpochKeys }>();
  const anchorKeys = await deriveEpochKeys(anchorEpochKey, userId);
  opened.set(stored.anchor_epoch, { key: anchorEpochKey, keys: anchorKeys });
  const recoveryKeyId = await keyId(recoveryPair.publicKey);
  const row = await vouched(userId, stored.roster, stored.anchor_epoch, anchorKeys, recoveryKeyId, "recovery");
  if (!row || row.public_key !== (await exportPublicKey(recoveryPair.publicKey))) throw new RecoveryRefusedError("notVerified");

  // Each pass opens what the epochs opened so far vouch for; a rotation's wrap comes from a key of the epoch before.
  let progress = true;
  while (progress) {
    progress = false;
    for (const wrap of stored.wraps) {
      if (opened.has(wrap.epoch) || wrap.mode !== "auth" || !wrap.sender_key_id) continue;
      for (const [epoch, { keys }] of opened) {
        const sender = await vouched(userId, stored.roster, epoch, keys, wrap.sender_key_id, "device");
        if (!sender) continue;
        try {
          const key = await openEpochKey(wrap, { userId, epoch: wrap.epoch }, recoveryPair, {
            mode: "auth",
            senderPublicKey: await importPublicKey(sender.public_key),
          });
          opened.set(wrap.epoch, { key, keys: await deriveEpochKeys(key, userId) });
          progress = true;
        } catch {
          // A wrap that does not open is not accepted; the epochs it would have led to stay closed.
        }
        break;
      }
    }
  }
  return opened;
}

/**
 * Unlocks this locked device with a typed recovery code. Throws RecoveryCodeError for what the code's own check
 * catches (a typo), RecoveryRefusedError when the code is not this account's or what it opens does not check out;
 * the server's refusals come through as the platform's API errors. Answers the recovery key's signer, for
 * `AccountKeys.joinListWithRecovery`.
 */
export async function unlockWithRecoveryCode(
  userId: string,
  held: HeldKeys,
  storage: KeyStorage,
  server: RecoveryServer,
  typed: string,
): Promise<RecoverySigner> {
  const code = await parseRecoveryCode(typed);
  const { recovery: stored } = await server.recovery();
  if (!stored) throw new RecoveryRefusedError("none");
  const recovery = await deriveRecoveryKeys(code, userId);
  let anchorEpochKey: Bytes;
  try {
    if ((await keyId(recovery.keyPair.publicKey)) !== stored.key_id) throw new RecoveryRefusedError("mismatch");
    anchorEpochKey = await openRecoveryAnchor(recovery.anchorKey, { userId, epoch: stored.anchor_epoch }, stored.anchor);
  } catch {
    throw new RecoveryRefusedError("mismatch");
  }
  const opened = await openRecovered(userId, stored, recovery.keyPair, anchorEpochKey);
  try {
    const current = (await server.state()).epoch;
    const currentKeys = current === null ? undefined : opened.get(current)?.keys;
    if (current === null || !currentKeys) throw new RecoveryRefusedError("outdated");
    const publicKey = await exportPublicKey(held.pair.publicKey);
    const row: RosterRow = { userId, epoch: current, keyId: held.keyId, publicKey, kind: "device", addedByKeyId: stored.key_id };
    const wraps: RecoveryUnlockInput["wraps"] = [];
    for (const [epoch, { key }] of opened) {
      const wrap = await wrapEpochKey(key, { userId, epoch }, held.pair.publicKey, { mode: "auth", senderKeyPair: held.pair });
      wraps.push({ epoch, ...wrap });
    }
    await server.unlock({
      proof: toBase64Url(recovery.proof),
      wraps,
      roster: {
        epoch: current,
        key_id: held.keyId,
        public_key: publicKey,
        kind: "device",
        added_by_key_id: stored.key_id,
        tag: await rosterTag(currentKeys.roster, row),
      },
    });
    for (const [epoch, { key }] of opened) held.epochs.set(epoch, await storage.saveEpoch(epoch, key));
    return { keyId: stored.key_id, signing: recovery.signing };
  } finally {
    for (const { key } of opened.values()) key.fill(0);
  }
}
