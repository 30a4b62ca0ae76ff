/**
 * The signed device list on the server (docs/protocol/encryption.md, "Signed device list"): it stores the entries the
 * devices sign and serves them, append-only. It cannot check a signature's meaning (the devices do); it keeps the
 * chain linear: an append must name the current head (its `seq` one more, its `prev` the head's hash), else 409.
 */
import { createHash } from "node:crypto";
import { type DeviceList, type DeviceListEntry, deviceListHashInput } from "@daysync/shared";
import type { Clock } from "../../clock.ts";
import type { UnitOfWork } from "../../feed/unit-of-work.ts";
import { badRequest, conflict, notFound } from "../../http/errors.ts";
import type { DeviceListRepository } from "./device-list.repository.ts";
import { keyIdOf } from "./keys.service.ts";

const listMoved = () =>
  conflict("device_list_moved", "The device list changed meanwhile: read it again and sign the entry after its new head.", "entry.prev");

export function createDeviceListService(deps: { clock: Clock; unitOfWork: UnitOfWork; list: DeviceListRepository }) {
  const { clock, unitOfWork, list } = deps;

  async function read(userId: string): Promise<DeviceList> {
    const [entries, signing_keys] = await Promise.all([list.entries(userId), list.signingKeys(userId)]);
    return { entries, signing_keys };
  }

  return {
    read,

    async append(userId: string, sessionId: string, entry: DeviceListEntry): Promise<DeviceList> {
      if (keyIdOf(entry.public_key, "entry.public_key") !== entry.key_id) {
        throw badRequest("entry.key_id must be the key id of entry.public_key.", "entry.key_id");
      }
      await unitOfWork.forUser(userId, async (work) => {
        const repo = list.in(work.trx);
        const head = await repo.head(userId);
        if (entry.seq !== (head ? head.seq + 1 : 0) || entry.prev !== (head?.hash ?? null)) throw listMoved();
        const hash = createHash("sha256").update(deviceListHashInput(userId, entry), "utf8").digest("base64url");
        await repo.append({ user_id: userId, ...entry, hash, created_by_session_id: sessionId, created_at: clock.now() });
      });
      return read(userId);
    },

    /** The session's signing key, once: the same again is fine, another is refused. */
    async setSigningKey(userId: string, sessionId: string, signingKey: string): Promise<void> {
      await unitOfWork.forUser(userId, async (work) => {
        const repo = list.in(work.trx);
        const current = await repo.signingKey(userId, sessionId);
        if (!current) throw notFound("device");
        if (current.signing_key === signingKey) return;
        if (current.signing_key !== null || !(await repo.setSigningKey(userId, sessionId, signingKey))) {
          throw conflict("signing_key_set", "This device already has a signing key; it cannot be replaced.", "signing_key");
        }
      });
    },
  };
}

export type DeviceListService = ReturnType<typeof createDeviceListService>;
