/**
 * The account's keys as the server sees them (decision 020): each device's public key, set once, and the epochs
 * devices make, with the wraps and roster rows they post. Everything stays opaque here; only key ids are computed,
 * since a wrap is addressed by them and a device must not choose another's.
 */
import { createHash } from "node:crypto";
import { type CreateEpochInput, type DeviceKeyResponse, type KeysState, type OwnWrapsInput, START_OVER_WAIT_MS } from "@daysync/shared";
import { may } from "../../access/policies.ts";
import type { Clock } from "../../clock.ts";
import type { KeyRosterTable, KeyWrapsTable } from "../../db/schema.ts";
import type { UnitOfWork } from "../../feed/unit-of-work.ts";
import { AppError, badRequest, conflict, forbidden, notFound } from "../../http/errors.ts";
import type { KeyRecoveryRepository } from "./key-recovery.repository.ts";
import type { KeysRepository } from "./keys.repository.ts";

/** Raw public key sizes: X25519, and uncompressed P-256 (the fallback KEM). */
const KEY_BYTES = new Set([32, 65]);

/** The key id of a raw public key: base64url of the first 16 bytes of its SHA-256. 400 naming `field` if it is no key. */
export function keyIdOf(publicKey: string, field = "public_key"): string {
  const raw = Buffer.from(publicKey, "base64url");
  // Buffer ignores stray trailing bits: only the one spelling of a key is taken, so its id is that of what was sent.
  if (raw.toString("base64url") !== publicKey || !KEY_BYTES.has(raw.length)) {
    throw badRequest(`${field} must be a raw 32-byte X25519 or 65-byte P-256 public key.`, field);
  }
  return createHash("sha256").update(raw).digest().subarray(0, 16).toString("base64url");
}

const epochTaken = (current: number | null) =>
  conflict(
    "key_epoch_taken",
    current === null
      ? "The account's keys changed meanwhile; read them again."
      : `Another device made the account's key epoch ${current} first; read it again.`,
    "expected",
  );

/** Start over would erase the recovery code: a device that holds no key must unlock with the code instead (issue 42). */
const recoveryCodeSet = () =>
  new AppError(
    403,
    "key_recovery_code_set",
    "The account has a recovery code: unlock this device with it instead of starting over, which would erase it.",
  );

/**
 * A device that holds the key but was not seen for this long is not counted as one that can approve: the locked only
 * device left may then Start over at once (decision 021). Seen within it, it stands in the way, so knowing the
 * password is not enough to wipe a living device's key.
 */
export const KEY_HOLDER_ABSENT_MS = 7 * 24 * 60 * 60 * 1000;

export function createKeysService(deps: { clock: Clock; unitOfWork: UnitOfWork; keys: KeysRepository; recovery: KeyRecoveryRepository }) {
  const { clock, unitOfWork, keys, recovery } = deps;

  /** How many other signed-in devices of the account hold the epoch and were seen within KEY_HOLDER_ABSENT_MS. */
  const otherHolders = (repo: KeysRepository, userId: string, epoch: number, sessionId: string) =>
    repo.otherHolders(userId, epoch, sessionId, clock.now() - KEY_HOLDER_ABSENT_MS);

  async function state(userId: string, sessionId: string): Promise<KeysState> {
    const [device, account] = await Promise.all([keys.deviceKey(userId, sessionId), keys.account(userId)]);
    if (!device || !account) throw notFound("device");
    const wraps = device.key_id ? await keys.wrapsFor(userId, device.key_id) : [];
    const epochs = new Set(wraps.map((w) => Number(w.epoch)));
    if (account.epoch !== null) epochs.add(account.epoch);
    const [roster, others, holders, recoveryKey, startOver] = await Promise.all([
      keys.roster(userId, [...epochs]),
      account.epoch === null ? 0 : otherHolders(keys, userId, account.epoch, sessionId),
      account.epoch === null ? [] : keys.holders(userId, account.epoch),
      recovery.recovery(userId),
      keys.startOverRequest(userId),
    ]);
    return {
      session_id: sessionId,
      key_id: device.key_id,
      epoch: account.epoch,
      rotation_due: account.rotationDueAt !== null,
      wraps: wraps.map((w) => ({ ...w, epoch: Number(w.epoch), created_at: Number(w.created_at) })),
      roster: roster.map((r) => ({ ...r, epoch: Number(r.epoch), added_at: Number(r.added_at) })),
      other_devices_with_current_key: others,
      holders,
      ...(recoveryKey ? { recovery: { key_id: recoveryKey.key_id, created_at: Number(recoveryKey.created_at) } } : {}),
      ...(startOver
        ? {
            start_over: {
              requested_at: startOver.requestedAt,
              available_at: startOver.requestedAt + START_OVER_WAIT_MS,
              by_this_device: startOver.sessionId === sessionId,
            },
          }
        : {}),
    };
  }

  /** Whether this session's request to start over has stood, uncancelled, for START_OVER_WAIT_MS (decision 021). */
  async function startOverWaited(repo: KeysRepository, userId: string, sessionId: string): Promise<boolean> {
    const request = await repo.startOverRequest(userId);
    return request?.sessionId === sessionId && clock.now() >= request.requestedAt + START_OVER_WAIT_MS;
  }

  /**
   * A locked device asks to start over while another device holds the key (decision 021): every device is told, a
   * device holding the key can cancel, and after START_OVER_WAIT_MS this one may start over. Refused to a device that
   * holds the key, and while a recovery code is set (the code is the way back).
   */
  async function requestStartOver(userId: string, sessionId: string): Promise<KeysState> {
    await unitOfWork.forUser(
      userId,
      async (work) => {
        const repo = keys.in(work.trx);
        const current = (await repo.account(userId))?.epoch ?? null;
        const device = await repo.deviceKey(userId, sessionId);
        if (current === null || !device)
          throw conflict("key_epoch_missing", "The account has no key yet, so there is nothing to start over.");
        if (device.key_id && (await repo.holds(userId, current, device.key_id)))
          throw conflict("key_held", "This device can read your messages: there is nothing to start over.");
        if (await recovery.in(work.trx).recovery(userId)) throw recoveryCodeSet();
        const standing = await repo.startOverRequest(userId);
        if (standing?.sessionId === sessionId) return;
        await repo.setStartOverRequest(userId, { sessionId, requestedAt: clock.now() });
        await work.record([userId], { kind: "key.start_over_changed", userId });
      },
      { userId, sessionId },
    );
    return state(userId, sessionId);
  }

  /** Cancels the standing request to start over: a device that holds the current key, or the one that asked. */
  async function cancelStartOver(userId: string, sessionId: string): Promise<KeysState> {
    await unitOfWork.forUser(
      userId,
      async (work) => {
        const repo = keys.in(work.trx);
        const standing = await repo.startOverRequest(userId);
        if (!standing) return;
        const current = (await repo.account(userId))?.epoch ?? null;
        const device = await repo.deviceKey(userId, sessionId);
        const holds = current !== null && !!device?.key_id && (await repo.holds(userId, current, device.key_id));
        if (!holds && standing.sessionId !== sessionId)
          throw forbidden("Only a device that can read your messages, or the one that asked, can cancel starting over.");
        await repo.setStartOverRequest(userId, undefined);
        await work.record([userId], { kind: "key.start_over_changed", userId });
      },
      { userId, sessionId },
    );
    return state(userId, sessionId);
  }

  return {
    state,
    requestStartOver,
    cancelStartOver,

    /**
     * The device's wraps of epochs it already holds, sealed again by itself (after a QR pairing); it cannot add
     * itself to an epoch this way: 404 for an epoch it holds no wrap of.
     */
    async replaceOwnWraps(userId: string, sessionId: string, body: OwnWrapsInput): Promise<KeysState> {
      const device = await keys.deviceKey(userId, sessionId);
      if (!device) throw notFound("device");
      const ownKeyId = device.key_id;
      if (ownKeyId === null) throw conflict("device_key_missing", "This device has no key yet: send its public key first.");
      await unitOfWork.forUser(userId, async (work) => {
        const repo = keys.in(work.trx);
        for (const wrap of body.wraps) {
          if (!(await repo.replaceOwnWrap(userId, ownKeyId, wrap, clock.now()))) throw notFound("key epoch");
        }
      });
      return state(userId, sessionId);
    },

    /** Keeps the device's public key, once: the same key again answers as the first time, another one is refused. */
    async setDeviceKey(userId: string, sessionId: string, publicKey: string): Promise<DeviceKeyResponse> {
      const keyId = keyIdOf(publicKey);
      return unitOfWork.forUser(userId, async (work) => {
        const repo = keys.in(work.trx);
        const current = await repo.deviceKey(userId, sessionId);
        if (!current) throw notFound("device");
        if (current.key_id !== null && current.public_key !== null) {
          if (current.key_id === keyId) return { key_id: current.key_id, public_key: current.public_key };
          throw conflict("device_key_set", "This device already has a key; it cannot be replaced.", "public_key");
        }
        // The user's row is locked: no other session of theirs can take the same key between this and the write.
        if (await repo.keyInUse(userId, keyId)) {
          throw conflict("device_key_in_use", "Another device of this account already has this key.", "public_key");
        }
        if (!(await repo.setDeviceKey(userId, sessionId, publicKey, keyId))) throw notFound("device");
        return { key_id: keyId, public_key: publicKey };
      });
    },

    /**
     * Makes the account's next epoch with the wraps and roster the device made for it. Of two devices racing for the
     * same epoch exactly one wins (the user's row is locked, and the epoch moves by a conditional update); the other
     * gets 409 `key_epoch_taken`. The account's devices hear `key.epoch_created`.
     */
    async createEpoch(userId: string, sessionId: string, body: CreateEpochInput): Promise<KeysState> {
      const device = await keys.deviceKey(userId, sessionId);
      if (!device) throw notFound("device");
      const ownKeyId = device.key_id;
      if (ownKeyId === null) throw conflict("device_key_missing", "This device has no key yet: send its public key first.");
      body.roster.forEach((entry, i) => {
        if (keyIdOf(entry.public_key, `roster.${i}.public_key`) !== entry.key_id) {
          throw badRequest("A roster row's key_id must be the key id of its public_key.", `roster.${i}.key_id`);
        }
      });
      if (!body.roster.some((entry) => entry.key_id === ownKeyId)) throw badRequest("roster must list this device's key.", "roster");
      if (!body.wraps.some((wrap) => wrap.recipient_key_id === ownKeyId))
        throw badRequest("wraps must hold one for this device's key.", "wraps");
      body.wraps.forEach((wrap, i) => {
        if (wrap.sender_key_id && wrap.sender_key_id !== ownKeyId) {
          throw badRequest("A wrap's sender must be this device's key.", `wraps.${i}.sender_key_id`);
        }
      });

      await unitOfWork.forUser(
        userId,
        async (work) => {
          const repo = keys.in(work.trx);
          const current = (await repo.account(userId))?.epoch ?? null;
          if (current !== body.expected) throw epochTaken(current);
          const recoveryKey = await recovery.in(work.trx).recovery(userId);
          if (current !== null) {
            const keyHolders = {
              self: await repo.holds(userId, current, ownKeyId),
              others: (await otherHolders(repo, userId, current, sessionId)) > 0,
            };
            const subject = {
              keyOwnerId: userId,
              keyHolders,
              recoveryCodeSet: recoveryKey !== undefined,
              startOverWaited: body.reason === "start_over" && (await startOverWaited(repo, userId, sessionId)),
            };
            if (body.reason === "rotation" && !may({ userId }, "key.rotate", subject)) {
              throw forbidden("This device does not hold the account's current key, so it cannot make the next one.");
            }
            if (body.reason === "start_over" && !may({ userId }, "key.start_over", subject)) {
              if (keyHolders.others) {
                throw conflict(
                  "key_epoch_in_use",
                  "Another signed-in device still holds the account's key: approve this device from it instead, or ask to start over in 24 hours.",
                );
              }
              throw recoveryCodeSet();
            }
          }
          // Recovery walks every epoch from its anchor on (docs/protocol/encryption.md, "Recovery code"): a rotation must carry it along.
          if (body.reason === "rotation" && recoveryKey && !body.wraps.some((w) => w.recipient_key_id === recoveryKey.key_id)) {
            throw conflict(
              "key_recovery_missing",
              "The account's recovery key needs a wrap of the new epoch too; read the keys again.",
              "wraps",
            );
          }
          // Start over leaves nothing a recovery code could open (section 5).
          if (body.reason === "start_over") await recovery.in(work.trx).remove(userId);
          // A request to start over is used up by any new epoch made from a start over.
          if (body.reason === "start_over" && (await repo.startOverRequest(userId))) {
            await repo.setStartOverRequest(userId, undefined);
            await work.record([userId], { kind: "key.start_over_changed", userId });
          }
          if (!(await repo.advance(userId, body.expected, body.epoch))) throw epochTaken(current);
          const now = clock.now();
          const epoch = { user_id: userId, epoch: body.epoch, created_by_session_id: sessionId, reason: body.reason, created_at: now };
          const wraps: KeyWrapsTable[] = body.wraps.map((w) => ({
            user_id: userId,
            epoch: body.epoch,
            recipient_key_id: w.recipient_key_id,
            sender_key_id: w.sender_key_id ?? null,
            mode: w.mode,
            enc: w.enc,
            ciphertext: w.ciphertext,
            created_at: now,
          }));
          const roster: KeyRosterTable[] = body.roster.map((r) => ({
            user_id: userId,
            epoch: body.epoch,
            key_id: r.key_id,
            public_key: r.public_key,
            kind: r.kind,
            added_by_key_id: r.added_by_key_id ?? null,
            added_at: now,
            tag: r.tag,
          }));
          await repo.insertEpoch(epoch, wraps, roster);
          await work.record([userId], { kind: "key.epoch_created", epoch: body.epoch }, epoch);
        },
        { userId, sessionId },
      );
      return state(userId, sessionId);
    },
  };
}

export type KeysService = ReturnType<typeof createKeysService>;
