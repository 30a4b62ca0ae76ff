/**
 * The key handover of a QR pairing (docs/protocol/encryption.md, "QR pairing handover"), on the server's side: the approving device's
 * handover is checked against its own account when it approves, and moved into key_wraps and key_roster for the new
 * session at the exchange. Everything stays opaque: the server checks addresses (key ids, epochs, who sends), never
 * the wraps themselves, which only the new device can open.
 */
import type { PairingHandover } from "@daysync/shared";
import type { Clock } from "../../clock.ts";
import type { KeyRosterTable, KeyWrapsTable } from "../../db/schema.ts";
import type { UnitOfWork } from "../../feed/unit-of-work.ts";
import { badRequest, conflict } from "../../http/errors.ts";
import type { KeysRepository } from "./keys.repository.ts";
import { keyIdOf } from "./keys.service.ts";

const keyInUse = () => conflict("device_key_in_use", "Another device of this account already has this key.", "public_key");

export function createKeyHandover(deps: { clock: Clock; unitOfWork: UnitOfWork; keys: KeysRepository }) {
  const { clock, unitOfWork, keys } = deps;

  return {
    /**
     * 400 naming the field unless the handover is the approving session's to give: for the asking device's key,
     * of epochs the approver holds a wrap of, sent from its own key, with the key's row in the account's current epoch.
     */
    async check(userId: string, approverSessionId: string, publicKey: string | null, handover: PairingHandover): Promise<void> {
      if (publicKey === null) throw badRequest("This device sent no key, so no handover can be given to it.", "handover");
      const newKeyId = keyIdOf(publicKey);
      if (handover.roster.key_id !== newKeyId || handover.roster.public_key !== publicKey) {
        throw badRequest("The handover must be for the asking device's key.", "handover.roster.public_key");
      }
      const [approver, account] = await Promise.all([keys.deviceKey(userId, approverSessionId), keys.account(userId)]);
      const ownKeyId = approver?.key_id ?? null;
      if (ownKeyId === null) throw badRequest("This device has no key to hand over.", "handover");
      if (account?.epoch !== handover.roster.epoch)
        throw badRequest("The roster row must be of the account's current epoch.", "handover.roster.epoch");
      if ((handover.roster.added_by_key_id ?? null) !== ownKeyId) {
        throw badRequest("The roster row must name this device's key as the one that added it.", "handover.roster.added_by_key_id");
      }
      for (const [i, wrap] of handover.wraps.entries()) {
        if ((wrap.sender_key_id ?? ownKeyId) !== ownKeyId)
          throw badRequest("A wrap's sender must be this device's key.", `handover.wraps.${i}.sender_key_id`);
        if (!(await keys.holds(userId, wrap.epoch, ownKeyId))) {
          throw badRequest("This device holds no key of that epoch to hand over.", `handover.wraps.${i}.epoch`);
        }
      }
      if (await keys.keyInUse(userId, newKeyId)) throw keyInUse();
    },

    /**
     * The exchange: the new session gets its public key (set once, like PUT /api/keys/device) and the handover's
     * wraps and roster row, in one unit of work. Epochs gone since the approval are skipped.
     */
    async receive(userId: string, sessionId: string, publicKey: string, handover: PairingHandover | null): Promise<void> {
      const keyId = keyIdOf(publicKey);
      await unitOfWork.forUser(
        userId,
        async (work) => {
          const repo = keys.in(work.trx);
          // Only a key taken by another session since the approval (checked then) fails here: the sign-in stands,
          // and the new device finds no key of its own on the server and makes another, locked.
          if (await repo.keyInUse(userId, keyId)) return;
          if (!(await repo.setDeviceKey(userId, sessionId, publicKey, keyId)) || !handover) return;
          const now = clock.now();
          const live = new Set(await repo.epochsOf(userId));
          const wraps: KeyWrapsTable[] = handover.wraps
            .filter((w) => live.has(w.epoch))
            .map((w) => ({
              user_id: userId,
              epoch: w.epoch,
              recipient_key_id: keyId,
              sender_key_id: w.sender_key_id ?? null,
              mode: w.mode,
              enc: w.enc,
              ciphertext: w.ciphertext,
              created_at: now,
            }));
          const r = handover.roster;
          const roster: KeyRosterTable[] = live.has(r.epoch)
            ? [
                {
                  user_id: userId,
                  epoch: r.epoch,
                  key_id: keyId,
                  public_key: publicKey,
                  kind: r.kind,
                  added_by_key_id: r.added_by_key_id ?? null,
                  added_at: now,
                  tag: r.tag,
                },
              ]
            : [];
          await repo.insertHandover(wraps, roster);
        },
        { userId, sessionId },
      );
    },
  };
}

export type KeyHandover = ReturnType<typeof createKeyHandover>;
