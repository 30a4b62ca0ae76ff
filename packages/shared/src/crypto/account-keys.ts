/**
 * Holding the account's keys on one device (docs/protocol/encryption.md, "Keys"), the same in the browser and the CLI: each gives
 * a store for what the device keeps and a way to reach the server. `sync()` makes this session's key pair and sends
 * its public half once, makes epoch 1 when the account has none (exactly one of two racing devices wins), and opens
 * every wrap addressed to this device that the chain rule allows: one this device sealed for itself, or one sealed
 * by a key listed, with a valid tag, in the roster of an epoch this device already holds. When a device that held the
 * current epoch was removed, it makes the next epoch for the devices that remain (section 7).
 */

import type { CreateEpochInput, KeysState, StoredRosterEntry } from "../keys.ts";
import { DEVICE_LIST_TEXT } from "../ui-text.ts";
import { nextEpochSender, rosterRowOf } from "./chain-rule.ts";
import { exportPublicKey, importPublicKey, keyId } from "./device-key.ts";
import { type ListMember, makeSigningKey, signEntry } from "./device-list.ts";
import {
  type DeviceListServer,
  extendList,
  type ListView,
  listAllows,
  nextAddition,
  nextRemoval,
  readList,
  selfMember,
} from "./device-list-sync.ts";
import { deriveEpochKeys, makeEpochKey } from "./epoch-keys.ts";
import type { AccountState, CreateEpochAnswer, HeldKeys, KeyStatus, KeyStorage, KeysServer } from "./held-keys.ts";
import type { RecoverySigner } from "./recovery.ts";
import { type RosterRow, rosterTag, verifyRosterRow } from "./roster.ts";
import { openEpochKey, wrapEpochKey } from "./wraps.ts";

/** One device's hold on the account's keys: `sync()`, `rotateNow()` and `startOver()` (see above). */
export class AccountKeys {
  /** The signed device list as last read (undefined without a list server): verified, or refused with its sentence. */
  private view: ListView | undefined;
  /** The signing key this process already published (PUT once per process, not on every sync). */
  private published: string | undefined;

  constructor(
    private readonly userId: string,
    private readonly storage: KeyStorage,
    private readonly server: KeysServer,
    private readonly list?: DeviceListServer,
  ) {}

  /** The verified device list as last read, for Devices' security codes; undefined before the first sync. */
  get deviceList(): ListView | undefined {
    return this.view;
  }

  async sync(): Promise<KeyStatus> {
    let state = await this.server.state();
    let held = await this.storage.load();
    if (state.key_id === null) {
      held = await this.newDevice();
      state = await this.server.state();
    } else if (!held || held.keyId !== state.key_id) {
      return { state: "lost", sessionId: state.session_id };
    }
    await this.readDeviceList(held);
    if (state.epoch === null && !held.account) state = await this.firstEpoch(held);
    await this.openWraps(held, state);
    await this.noteEpoch(held, state);
    const highest = held.account?.highestEpoch ?? 0;
    const rolledBack = (state.epoch ?? 0) < highest ? highest : undefined;
    if (
      rolledBack === undefined &&
      state.rotation_due &&
      state.epoch !== null &&
      held.epochs.has(state.epoch) &&
      this.mayRotate(held, state)
    ) {
      state = await this.rotate(held, state, state.epoch);
      await this.openWraps(held, state);
      await this.noteEpoch(held, state);
    }
    await this.tendDeviceList(held, state);
    const listProblem = this.view && !this.view.ok ? { listProblem: this.view.problem } : {};
    const known = { epoch: state.epoch ?? 0, sessionId: state.session_id, keys: held, ...listProblem };
    if (held.epochs.has(known.epoch)) return { state: "ready", ...known, ...(rolledBack === undefined ? {} : { rolledBack }) };
    return { state: "locked", ...known, recoveryCode: state.recovery !== undefined };
  }

  /**
   * Revocation driven by this device (docs/protocol/encryption.md, "Rotation and revocation"): after it removed
   * devices (their key ids in `removedKeyIds`, remembered so no later rotation wraps for them), signed out the others
   * or changed the recovery code, it makes the next epoch at once, without waiting for the server's `rotation_due`.
   * `keepOnly` limits the wraps to this device and the recovery key (sign out all other devices). Answers the status
   * after, as `sync` does.
   */
  async rotateNow(options: { removedKeyIds?: string[]; keepOnly?: "self" } = {}): Promise<KeyStatus> {
    await this.noteRemoved(options.removedKeyIds ?? []);
    const held = await this.storage.load();
    const state = await this.server.state();
    if (held) await this.removeFromList(held, options);
    if (held && held.keyId === state.key_id && state.epoch !== null && held.epochs.has(state.epoch)) {
      const highest = held.account?.highestEpoch ?? 0;
      if (state.epoch >= highest) {
        const next = await this.rotate(held, state, state.epoch, options.keepOnly);
        await this.openWraps(held, next);
      }
    }
    return this.sync();
  }

  /**
   * Remembers keys this device is about to remove, before it asks the server to: a rotation started meanwhile (the
   * server's `key.rotation_due`) already leaves them out.
   */
  async noteRemoved(keyIds: string[]): Promise<void> {
    const held = await this.storage.load();
    if (!held?.account || keyIds.every((id) => held.account?.removedKeyIds.includes(id))) return;
    await this.saveAccount(held, { ...held.account, removedKeyIds: [...new Set([...held.account.removedKeyIds, ...keyIds])] });
  }

  /**
   * Keeps when the account was first seen keyed and the highest epoch seen, held or told (never lowered). The time is
   * the server's, as messages are dated by it: the oldest of this device's wraps, never later than this device's now.
   */
  private async noteEpoch(held: HeldKeys, state: KeysState): Promise<void> {
    const highestHeld = Math.max(0, ...held.epochs.keys());
    const highest = Math.max(held.account?.highestEpoch ?? 0, state.epoch ?? 0, highestHeld);
    if (highest === 0 || (held.account && held.account.highestEpoch === highest)) return;
    await this.saveAccount(held, {
      ...held.account,
      keyedAt: held.account?.keyedAt ?? Math.min(Date.now(), ...state.wraps.map((wrap) => wrap.created_at)),
      highestEpoch: highest,
      removedKeyIds: held.account?.removedKeyIds ?? [],
    });
  }

  private async saveAccount(held: HeldKeys, account: AccountState): Promise<void> {
    held.account = account;
    await this.storage.saveAccount?.(account);
  }

  private async newDevice(): Promise<HeldKeys> {
    const pair = await this.storage.generatePair();
    const id = await keyId(pair.publicKey);
    await this.storage.saveDevice(id, pair);
    await this.server.setDeviceKey(await exportPublicKey(pair.publicKey));
    return { keyId: id, pair, epochs: new Map() };
  }

  /** Epoch 1, wrapped for this device alone; a device that loses the race asks for approval like any other. */
  private async firstEpoch(held: HeldKeys): Promise<KeysState> {
    return this.settled(await this.newEpoch(held, { epoch: 1, expected: null, reason: "first" }, []));
  }

  /**
   * Start over (docs/protocol/encryption.md, "Locked devices and Start over"): epoch n+1 wrapped for this device alone, accepted by the server only while
   * no other signed-in device holds epoch n. What was sealed before can no longer be read here.
   */
  async startOver(): Promise<CreateEpochAnswer> {
    const state = await this.server.state();
    const held = await this.storage.load();
    if (!held || held.keyId !== state.key_id || state.epoch === null) return { ok: false, code: "not_locked" };
    const answer = await this.newEpoch(held, { epoch: state.epoch + 1, expected: state.epoch, reason: "start_over" }, []);
    if (answer.ok) await this.openWraps(held, answer.state);
    return answer;
  }

  /**
   * The next epoch, for this device and every other key that still holds the current one and is listed, with a
   * valid tag, in the current roster: what the server says of who holds it is checked, not taken.
   */
  private async rotate(held: HeldKeys, state: KeysState, current: number, keepOnly?: "self"): Promise<KeysState> {
    const rosterKey = held.epochs.get(current)?.roster;
    if (!rosterKey) return state;
    const removed = new Set(held.account?.removedKeyIds ?? []);
    if (this.view?.ok) for (const keyId of this.view.list.removed) removed.add(keyId);
    for (let attempt = 1; ; attempt++) {
      // The recovery key (kind recovery) is among the holders once a code exists, so it gets the next epoch too. A key
      // this device removed is never wrapped for, even when the server lists it as a holder.
      const others: StoredRosterEntry[] = [];
      for (const keyId of state.holders) {
        if (keyId === held.keyId || removed.has(keyId)) continue;
        const entry = state.roster.find((row) => row.epoch === current && row.key_id === keyId);
        if (keepOnly === "self" && entry?.kind !== "recovery") continue;
        if (entry && (await verifyRosterRow(rosterKey, rosterRowOf(this.userId, entry), entry.tag))) others.push(entry);
      }
      const answer = await this.newEpoch(held, { epoch: current + 1, expected: current, reason: "rotation" }, others);
      // A recovery code made since this device read the holders: read them again, once.
      if (answer.ok || answer.code !== "key_recovery_missing" || attempt > 1) return this.settled(answer);
      state = await this.server.state();
      if (state.epoch !== current) return state;
    }
  }

  /** The key state after an epoch was posted: the new one, or, if another device was first, the winner's. */
  private async settled(answer: CreateEpochAnswer): Promise<KeysState> {
    if (answer.ok) return answer.state;
    if (answer.code !== "key_epoch_taken") throw new Error(`The account's next key epoch was refused: ${answer.code}`);
    return this.server.state();
  }

  /** A fresh epoch key wrapped from this device for itself and `others`. */
  private async newEpoch(
    held: HeldKeys,
    next: Pick<CreateEpochInput, "epoch" | "expected" | "reason">,
    others: Array<Pick<StoredRosterEntry, "key_id" | "public_key" | "kind">>,
  ): Promise<CreateEpochAnswer> {
    const { epoch } = next;
    const epochKey = makeEpochKey();
    const keys = await deriveEpochKeys(epochKey, this.userId);
    const self = { key_id: held.keyId, public_key: await exportPublicKey(held.pair.publicKey), kind: "device" as const };
    const wraps: CreateEpochInput["wraps"] = [];
    const roster: CreateEpochInput["roster"] = [];
    for (const member of [self, ...others]) {
      const recipient = member === self ? held.pair.publicKey : await importPublicKey(member.public_key);
      const wrap = await wrapEpochKey(epochKey, { userId: this.userId, epoch }, recipient, { mode: "auth", senderKeyPair: held.pair });
      wraps.push({ epoch, recipient_key_id: member.key_id, sender_key_id: held.keyId, mode: "auth", ...wrap });
      const addedBy = member === self ? null : held.keyId;
      const row: RosterRow = {
        userId: this.userId,
        epoch,
        keyId: member.key_id,
        publicKey: member.public_key,
        kind: member.kind,
        addedByKeyId: addedBy,
      };
      roster.push({
        epoch,
        key_id: row.keyId,
        public_key: row.publicKey,
        kind: row.kind,
        added_by_key_id: addedBy,
        tag: await rosterTag(keys.roster, row),
      });
    }
    return this.server.createEpoch({ ...next, wraps, roster });
  }

  /**
   * A rotation the server asks for is made by a device of the signed list when one still holds the key: the others
   * would refuse an epoch from a device not listed yet (signed in since a member last synced). With no listed holder
   * left (the recovery code unlocked this one after the others went), this device makes it.
   */
  private mayRotate(held: HeldKeys, state: KeysState): boolean {
    if (!this.list || !this.view?.ok) return true;
    const { members } = this.view.list;
    const devices = new Set(state.roster.filter((row) => row.epoch === state.epoch && row.kind === "device").map((row) => row.key_id));
    const listedHolder = (keyId: string) => keyId !== held.keyId && devices.has(keyId) && members.has(keyId);
    return members.has(held.keyId) || !state.holders.some(listedHolder);
  }

  /**
   * After this device made, replaced or removed the recovery code: the new recovery key joins the signed device list
   * (`member`, undefined once removed) and every recovery key listed before leaves it. Only a listed device signs.
   */
  async recoveryChanged(member: ListMember | undefined): Promise<void> {
    const held = await this.storage.load();
    if (!this.list || !held?.signing) return;
    await this.readDeviceList(held);
    if (!this.view?.ok) return;
    const state = await this.server.state();
    const recoveryKeys = new Set(state.roster.filter((row) => row.kind === "recovery").map((row) => row.key_id));
    const self = await selfMember(held, held.signing);
    const signer = { keyId: held.keyId, signing: held.signing };
    this.view = await extendList(this.userId, this.list, this.view, (v) => {
      if (!v.list.members.has(self.keyId)) return undefined;
      const stale = [...v.list.members.values()].find((m) => recoveryKeys.has(m.keyId) && m.keyId !== member?.keyId);
      if (stale) return signEntry(this.userId, v.list.head, "remove", stale, signer);
      if (member && !v.list.members.has(member.keyId) && !v.list.removed.has(member.keyId))
        return signEntry(this.userId, v.list.head, "add", member, signer);
      return undefined;
    });
    await this.pinList(held);
  }

  /**
   * Right after the recovery code unlocked this device: the recovery key, when the list has it, signs this device in,
   * so the listed devices take its rotations and it theirs even when no device that was listed is left.
   */
  async joinListWithRecovery(recovery: RecoverySigner): Promise<void> {
    const held = await this.storage.load();
    if (!this.list || !held) return;
    await this.readDeviceList(held);
    const signing = held.signing;
    if (!this.view?.ok || !signing) return;
    const self = await selfMember(held, signing);
    this.view = await extendList(this.userId, this.list, this.view, (v) =>
      v.list.members.has(recovery.keyId) && !v.list.members.has(self.keyId)
        ? signEntry(this.userId, v.list.head, "add", self, recovery)
        : undefined,
    );
    await this.pinList(held);
  }

  /** Reads and verifies the list against the pinned head; a device keyed before the list gets its signing key here. */
  private async readDeviceList(held: HeldKeys): Promise<void> {
    if (!this.list) return;
    if (!held.signing) {
      held.signing = makeSigningKey();
      await this.storage.saveSigningKey?.(held.signing);
    }
    if (this.published !== held.signing.publicKey) {
      await this.list.setSigningKey(held.signing.publicKey);
      this.published = held.signing.publicKey;
    }
    this.view = readList(this.userId, await this.list.read(), held.account?.listHead);
    // A list naming this device with another signing key than its own: the server swapped it when it was added.
    const listed = this.view.ok ? this.view.list.members.get(held.keyId) : undefined;
    if (listed && listed.signingKey !== held.signing.publicKey) this.view = { ok: false, problem: DEVICE_LIST_TEXT.notOwnKey };
  }

  /**
   * Holding the current epoch, this device makes the list's first entry if it is empty and adds the devices the
   * current roster lists (with a valid tag) that it does not; then it pins the head it verified.
   */
  private async tendDeviceList(held: HeldKeys, state: KeysState): Promise<void> {
    const view = this.view;
    const current = state.epoch === null ? undefined : held.epochs.get(state.epoch);
    if (!this.list || !view?.ok || !held.signing) return;
    if (current && state.epoch !== null) {
      const trusted: StoredRosterEntry[] = [];
      for (const row of state.roster) {
        if (row.epoch === state.epoch && (await verifyRosterRow(current.roster, rosterRowOf(this.userId, row), row.tag))) trusted.push(row);
      }
      const self = await selfMember(held, held.signing);
      const signing = held.signing;
      this.view = await extendList(this.userId, this.list, view, (v) => nextAddition(this.userId, self, signing, v, trusted));
    }
    await this.pinList(held);
  }

  /** Signs the removal of the devices this device removes (all others, for `keepOnly: "self"`). */
  private async removeFromList(held: HeldKeys, options: { removedKeyIds?: string[]; keepOnly?: "self" }): Promise<void> {
    if (!this.list || !held.signing) return;
    await this.readDeviceList(held);
    if (!this.view?.ok) return;
    const removed = new Set(options.removedKeyIds ?? []);
    const self = await selfMember(held, held.signing);
    const signing = held.signing;
    const chosen = (member: { keyId: string }) => options.keepOnly === "self" || removed.has(member.keyId);
    this.view = await extendList(this.userId, this.list, this.view, (v) => nextRemoval(this.userId, self, signing, v, chosen));
    await this.pinList(held);
  }

  private async pinList(held: HeldKeys): Promise<void> {
    const head = this.view?.ok ? this.view.list.head : undefined;
    if (!head || !held.account || held.account.listHead?.hash === head.hash) return;
    await this.saveAccount(held, { ...held.account, listHead: head });
  }

  /** Oldest first, so a wrap sent by a key of epoch n is checked against the roster of n once n is open. */
  private async openWraps(held: HeldKeys, state: KeysState): Promise<void> {
    const waiting = state.wraps.filter((wrap) => !held.epochs.has(wrap.epoch)).sort((a, b) => a.epoch - b.epoch);
    for (const wrap of waiting) {
      const sender = await nextEpochSender(this.userId, held, wrap, state.roster);
      // A new epoch is taken only from a device the signed list has now (docs/protocol/encryption.md).
      if (!sender || (wrap.sender_key_id !== held.keyId && !listAllows(this.view, wrap.sender_key_id ?? ""))) continue;
      try {
        const epochKey = await openEpochKey(wrap, { userId: this.userId, epoch: wrap.epoch }, held.pair, {
          mode: "auth",
          senderPublicKey: sender,
        });
        held.epochs.set(wrap.epoch, await this.storage.saveEpoch(wrap.epoch, epochKey));
      } catch {
        // A wrap that does not open is not accepted; the device stays locked for that epoch.
      }
    }
  }
}
