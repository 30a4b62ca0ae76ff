/**
 * The recovery code on the server (docs/protocol/encryption.md, "Recovery code"). A device holding the current epoch stores the recovery
 * key with its anchor and wraps (replacing an older one) or removes it; any device of the account reads it; a locked
 * device that opened what it holds, and shows the proof the code gives, adds itself to those epochs. Everything stays
 * opaque here: the server checks who may do what, that key ids are those of their keys, and the proof's hash.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { KeysState, RecoveryState, RecoveryUnlockInput, SetRecoveryInput } from "@daysync/shared";
import { may } from "../../access/policies.ts";
import type { Clock } from "../../clock.ts";
import type { KeyRosterTable, KeyWrapsTable } from "../../db/schema.ts";
import type { UnitOfWork, Work } from "../../feed/unit-of-work.ts";
import { badRequest, conflict, forbidden, notFound } from "../../http/errors.ts";
import type { KeyRecoveryRepository } from "./key-recovery.repository.ts";
import type { KeysRepository } from "./keys.repository.ts";
import { type KeysService, keyIdOf } from "./keys.service.ts";

const keyMissing = () => conflict("device_key_missing", "This device has no key yet: send its public key first.");
const epochMoved = (current: number | null, field: string) =>
  current === null
    ? conflict("key_epoch_missing", "The account has no key yet.", field)
    : conflict("key_epoch_taken", `The account's key is now epoch ${current}; read it again.`, field);

/** The proof's SHA-256 matches the stored one, compared in constant time. */
function proofMatches(proof: string, storedHash: string): boolean {
  const hash = createHash("sha256").update(Buffer.from(proof, "base64url")).digest();
  const stored = Buffer.from(storedHash, "base64url");
  return stored.length === hash.length && timingSafeEqual(hash, stored);
}

export function createKeyRecoveryService(deps: {
  clock: Clock;
  unitOfWork: UnitOfWork;
  keys: KeysRepository;
  recovery: KeyRecoveryRepository;
  keysService: Pick<KeysService, "state">;
}) {
  const { clock, unitOfWork, keys, recovery, keysService } = deps;

  /** The session's key id, which every route here needs. */
  async function ownKey(userId: string, sessionId: string): Promise<{ keyId: string; publicKey: string }> {
    const device = await keys.deviceKey(userId, sessionId);
    if (!device) throw notFound("device");
    if (device.key_id === null || device.public_key === null) throw keyMissing();
    return { keyId: device.key_id, publicKey: device.public_key };
  }

  /** The current epoch, when the policies let this key make or remove the recovery code (it holds that epoch). */
  async function manager(repo: KeysRepository, userId: string, keyId: string): Promise<number> {
    const current = (await repo.account(userId))?.epoch ?? null;
    const self = current !== null && (await repo.holds(userId, current, keyId));
    if (current === null || !may({ userId }, "key.manage_recovery", { keyOwnerId: userId, keyHolders: { self, others: false } })) {
      throw forbidden("This device does not hold the account's current key, so it cannot change the recovery code.");
    }
    return current;
  }

  /**
   * A replaced or removed recovery code: the epoch its anchor opens must not carry anything new, so the next one is due
   * (the device that changed it makes it at once; any other keyed device does on `key.rotation_due`).
   */
  async function rotationDue(repo: KeysRepository, work: Work, userId: string, epoch: number) {
    await repo.markRotationDue(userId, clock.now());
    const due = { kind: "key.rotation_due", epoch } as const;
    await work.record([userId], due);
  }

  /** 404 when a wrap is of an epoch the account has no record of. */
  async function epochsExist(repo: KeysRepository, userId: string, epochs: number[]) {
    const live = new Set(await repo.epochsOf(userId));
    if (epochs.some((epoch) => !live.has(epoch))) throw notFound("key epoch");
  }

  async function read(userId: string): Promise<RecoveryState> {
    const stored = await recovery.recovery(userId);
    if (!stored) return { recovery: null };
    const anchorEpoch = Number(stored.anchor_epoch);
    const [wraps, roster] = await Promise.all([keys.wrapsFor(userId, stored.key_id), keys.roster(userId, { from: anchorEpoch })]);
    return {
      recovery: {
        key_id: stored.key_id,
        public_key: stored.public_key,
        created_at: Number(stored.created_at),
        anchor_epoch: anchorEpoch,
        anchor: stored.anchor,
        wraps: wraps.map((w) => ({ ...w, epoch: Number(w.epoch), created_at: Number(w.created_at) })),
        roster: roster.map((r) => ({ ...r, epoch: Number(r.epoch), added_at: Number(r.added_at) })),
      },
    };
  }

  return {
    read,

    /** Stores the account's recovery key, replacing an older one whose wraps go with it. */
    async set(userId: string, sessionId: string, body: SetRecoveryInput): Promise<RecoveryState> {
      const own = await ownKey(userId, sessionId);
      const keyId = keyIdOf(body.public_key);
      if (body.roster.key_id !== keyId) throw badRequest("roster.key_id must be the key id of the recovery public key.", "roster.key_id");
      if (body.roster.added_by_key_id !== own.keyId) {
        throw badRequest("The recovery key's row must be added by this device's key.", "roster.added_by_key_id");
      }
      body.wraps.forEach((wrap, i) => {
        if (wrap.sender_key_id !== own.keyId) throw badRequest("A wrap's sender must be this device's key.", `wraps.${i}.sender_key_id`);
      });
      await unitOfWork.forUser(
        userId,
        async (work) => {
          const repo = keys.in(work.trx);
          const current = await manager(repo, userId, own.keyId);
          if (body.anchor_epoch !== current) throw epochMoved(current, "anchor_epoch");
          if (await repo.keyInUse(userId, keyId)) {
            throw conflict("device_key_in_use", "A device of this account already has this key.", "public_key");
          }
          await epochsExist(
            repo,
            userId,
            body.wraps.map((w) => w.epoch),
          );
          const now = clock.now();
          const wraps = authWraps(userId, body.wraps, { recipient: keyId, sender: own.keyId }, now);
          const roster: KeyRosterTable = {
            user_id: userId,
            epoch: current,
            key_id: keyId,
            public_key: body.public_key,
            kind: "recovery",
            added_by_key_id: own.keyId,
            added_at: now,
            tag: body.roster.tag,
          };
          const rec = recovery.in(work.trx);
          if (await rec.remove(userId)) await rotationDue(repo, work, userId, current);
          const row = {
            user_id: userId,
            key_id: keyId,
            public_key: body.public_key,
            anchor_epoch: current,
            anchor: body.anchor,
            proof_hash: body.proof_hash,
            created_by_session_id: sessionId,
            created_at: now,
          };
          await rec.insert(row, wraps, roster);
        },
        { userId, sessionId },
      );
      return read(userId);
    },

    /** Removes the account's recovery code: the code no longer opens anything new, and no rotation wraps for it. */
    async remove(userId: string, sessionId: string): Promise<void> {
      const own = await ownKey(userId, sessionId);
      await unitOfWork.forUser(
        userId,
        async (work) => {
          const repo = keys.in(work.trx);
          const current = await manager(repo, userId, own.keyId);
          if (!(await recovery.in(work.trx).remove(userId))) throw notFound("recovery code");
          await rotationDue(repo, work, userId, current);
        },
        { userId, sessionId },
      );
    },

    /**
     * A locked device that typed the code adds its own wraps of the epochs the recovery key opened, and its row in the
     * current roster, once its proof matches. It answers with the device's key state, as GET /api/keys does.
     */
    async unlock(userId: string, sessionId: string, body: RecoveryUnlockInput): Promise<KeysState> {
      const own = await ownKey(userId, sessionId);
      if (body.roster.key_id !== own.keyId || body.roster.public_key !== own.publicKey) {
        throw badRequest("The roster row must be this device's key.", "roster.key_id");
      }
      await unitOfWork.forUser(
        userId,
        async (work) => {
          const repo = keys.in(work.trx);
          const rec = recovery.in(work.trx);
          const stored = await rec.recovery(userId);
          if (!stored) throw notFound("recovery code");
          if (!may({ userId }, "key.recover", { keyOwnerId: userId, recoveryProof: proofMatches(body.proof, stored.proof_hash) })) {
            throw forbidden("That recovery code does not match this account.");
          }
          if (body.roster.added_by_key_id !== stored.key_id) {
            throw badRequest("The device's row must be added by the recovery key.", "roster.added_by_key_id");
          }
          const current = (await repo.account(userId))?.epoch ?? null;
          if (body.roster.epoch !== current) throw epochMoved(current, "roster.epoch");
          await epochsExist(
            repo,
            userId,
            body.wraps.map((w) => w.epoch),
          );
          const now = clock.now();
          const wraps = authWraps(userId, body.wraps, { recipient: own.keyId, sender: own.keyId }, now);
          await rec.addDevice(wraps, {
            user_id: userId,
            epoch: current,
            key_id: own.keyId,
            public_key: own.publicKey,
            kind: "device",
            added_by_key_id: stored.key_id,
            added_at: now,
            tag: body.roster.tag,
          });
        },
        { userId, sessionId },
      );
      return keysService.state(userId, sessionId);
    },
  };
}

export type KeyRecoveryService = ReturnType<typeof createKeyRecoveryService>;

/** The rows of `auth`-mode wraps one key sealed for another. */
function authWraps(
  userId: string,
  wraps: ReadonlyArray<{ epoch: number; enc: string; ciphertext: string }>,
  keys: { recipient: string; sender: string },
  now: number,
): KeyWrapsTable[] {
  return wraps.map((w) => ({
    user_id: userId,
    epoch: w.epoch,
    recipient_key_id: keys.recipient,
    sender_key_id: keys.sender,
    mode: "auth",
    enc: w.enc,
    ciphertext: w.ciphertext,
    created_at: now,
  }));
}
