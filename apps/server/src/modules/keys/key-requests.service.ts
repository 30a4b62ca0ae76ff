/**
 * Approval by a typed code (docs/protocol/encryption.md, "Approving a device"): the server relays a CPace exchange
 * between a locked device and the one keyed device answering it, counts the wrong codes the asking device reports
 * (the third ends the request), and stores the answering device's handover. It opens and checks no cryptography: it
 * checks who may take each step, that each step comes in order, and that the handover is addressed to the asking
 * device from the answering one.
 */
import { randomUUID } from "node:crypto";
import { type ApproveKeyRequestInput, KEY_REQUEST_LIFETIME_MS, KEY_REQUEST_MAX_FAILURES, type KeyRequest } from "@daysync/shared";
import { may } from "../../access/policies.ts";
import type { Clock } from "../../clock.ts";
import type { KeyRequestStatus, KeyRosterTable, KeyWrapsTable } from "../../db/schema.ts";
import type { UnitOfWork, Work } from "../../feed/unit-of-work.ts";
import { badRequest, conflict, forbidden, gone, notFound } from "../../http/errors.ts";
import { type KeyRequestRow, presentKeyRequest } from "../../presenters/key-requests.presenter.ts";
import { type KeyRequestsRepository, OPEN_STATUSES } from "./key-requests.repository.ts";
import type { KeysRepository } from "./keys.repository.ts";

const outOfOrder = (row: KeyRequestRow, step: string) =>
  conflict("key_request_state", `This request is ${row.status}, so it cannot be ${step} now.`);

export function createKeyRequestsService(deps: {
  clock: Clock;
  unitOfWork: UnitOfWork;
  keys: KeysRepository;
  requests: KeyRequestsRepository;
}) {
  const { clock, unitOfWork, keys, requests } = deps;

  /** Runs a step in the user's unit of work with both repositories over its transaction. */
  const inUnit = <T>(
    userId: string,
    sessionId: string,
    step: (tx: { work: Work; keys: KeysRepository; requests: KeyRequestsRepository; now: number }) => Promise<T>,
  ) =>
    unitOfWork.forUser(userId, (work) => step({ work, keys: keys.in(work.trx), requests: requests.in(work.trx), now: clock.now() }), {
      userId,
      sessionId,
    });

  /** The user's request, still live: another account's, or one that never was, is not found; an expired one is gone. */
  async function liveRequest(repo: KeyRequestsRepository, userId: string, id: string, now: number): Promise<KeyRequestRow> {
    const row = await repo.request(userId, id);
    if (!row) throw notFound("key request");
    if (row.status === "expired" || Number(row.expires_at) <= now) {
      throw gone("key_request_expired", "This request expired: ask again from the device to approve.");
    }
    return row;
  }

  /** The session's key id and the current epoch when the policies let it approve devices (it holds that epoch). */
  async function keyHolder(repo: KeysRepository, userId: string, sessionId: string) {
    const [device, account] = await Promise.all([repo.deviceKey(userId, sessionId), repo.account(userId)]);
    const keyId = device?.key_id ?? null;
    const epoch = account?.epoch ?? null;
    const self = keyId !== null && epoch !== null && (await repo.holds(userId, epoch, keyId));
    const subject = { keyOwnerId: userId, keyHolders: { self, others: false } };
    if (keyId === null || epoch === null || !may({ userId }, "key.approve_device", subject)) return undefined;
    return { keyId, epoch };
  }

  /** Moves the request and tells the account's devices; its new state. */
  async function moveAndTell(
    tx: { work: Work; requests: KeyRequestsRepository; now: number },
    userId: string,
    row: KeyRequestRow,
    from: KeyRequestStatus[],
    set: Parameters<KeyRequestsRepository["move"]>[4],
    step: string,
  ): Promise<KeyRequest> {
    if (!(await tx.requests.move(userId, row.id, from, tx.now, set))) throw outOfOrder(row, step);
    return tell(tx, userId, row.id, "key.request_updated");
  }

  async function tell(
    tx: { work: Work; requests: KeyRequestsRepository },
    userId: string,
    id: string,
    kind: "key.requested" | "key.request_updated",
  ): Promise<KeyRequest> {
    const moved = await tx.requests.request(userId, id);
    if (!moved) throw notFound("key request");
    await tx.work.record([userId], { kind, requestId: id }, moved);
    return presentKeyRequest(moved);
  }

  return {
    /** A locked device asks; an open request of the same device is replaced (it ends as expired). */
    create(userId: string, sessionId: string, requesterShare: string): Promise<KeyRequest> {
      return inUnit(userId, sessionId, async (tx) => {
        const device = await tx.keys.deviceKey(userId, sessionId);
        if (!device) throw notFound("device");
        if (device.key_id === null) throw conflict("device_key_missing", "This device has no key yet: send its public key first.");
        if ((await tx.keys.account(userId))?.epoch == null) {
          throw conflict("key_epoch_missing", "The account has no key yet: this device can make it instead of asking for it.");
        }
        await tx.requests.deleteExpired(userId, tx.now);
        for (const old of await tx.requests.openOfSession(userId, sessionId, tx.now)) {
          await tx.requests.move(userId, old, OPEN_STATUSES, tx.now, { status: "expired" });
          await tell(tx, userId, old, "key.request_updated");
        }
        const id = randomUUID();
        await tx.requests.insert({
          id,
          user_id: userId,
          session_id: sessionId,
          requester_share: requesterShare,
          approver_session_id: null,
          approver_share: null,
          approver_confirmation: null,
          requester_confirmation: null,
          handover_confirmation: null,
          failures: 0,
          status: "pending",
          created_at: tx.now,
          expires_at: tx.now + KEY_REQUEST_LIFETIME_MS,
        });
        return tell(tx, userId, id, "key.requested");
      });
    },

    /** The account's requests in progress, and approved ones until they expire (the asking device may confirm later). */
    async list(userId: string): Promise<KeyRequest[]> {
      const rows = await requests.live(userId, [...OPEN_STATUSES, "approved"], clock.now());
      return rows.map(presentKeyRequest);
    },

    /** Approve with a typed code: the first device holding the current key to answer is the only one, until a wrong code. */
    answer(
      userId: string,
      sessionId: string,
      id: string,
      body: { approver_share: string; approver_confirmation: string },
    ): Promise<KeyRequest> {
      return inUnit(userId, sessionId, async (tx) => {
        const row = await liveRequest(tx.requests, userId, id, tx.now);
        if (row.session_id === sessionId) throw forbidden("A device cannot approve itself.");
        if (!(await keyHolder(tx.keys, userId, sessionId))) {
          throw forbidden("Only a device that can read your messages can approve another one.");
        }
        if (
          !(await tx.requests.move(userId, id, ["pending"], tx.now, {
            status: "answered",
            approver_session_id: sessionId,
            approver_share: body.approver_share,
            approver_confirmation: body.approver_confirmation,
          }))
        ) {
          throw conflict("key_request_taken", "Another device already answered this request.");
        }
        return tell(tx, userId, id, "key.request_updated");
      });
    },

    /** The asking device found the answer's confirmation good: the codes matched. */
    confirm(userId: string, sessionId: string, id: string, requesterConfirmation: string): Promise<KeyRequest> {
      return inUnit(userId, sessionId, async (tx) => {
        const row = await liveRequest(tx.requests, userId, id, tx.now);
        if (row.session_id !== sessionId) throw forbidden("Only the device that asked can confirm the code.");
        return moveAndTell(
          tx,
          userId,
          row,
          ["answered"],
          { status: "confirmed", requester_confirmation: requesterConfirmation },
          "confirmed",
        );
      });
    },

    /**
     * The asking device found the answer's confirmation wrong (a wrong code): the answer is cleared so the code can be
     * typed again, and the third ends the request as failed.
     */
    reject(userId: string, sessionId: string, id: string): Promise<KeyRequest> {
      return inUnit(userId, sessionId, async (tx) => {
        const row = await liveRequest(tx.requests, userId, id, tx.now);
        if (row.session_id !== sessionId) throw forbidden("Only the device that asked can say the code was wrong.");
        const failures = Number(row.failures) + 1;
        return moveAndTell(
          tx,
          userId,
          row,
          ["answered"],
          {
            status: failures >= KEY_REQUEST_MAX_FAILURES ? "failed" : "pending",
            failures,
            approver_session_id: null,
            approver_share: null,
            approver_confirmation: null,
          },
          "rejected",
        );
      });
    },

    /** The answering device hands over every epoch it holds, sealed for the asking device, and its roster row. */
    approve(userId: string, sessionId: string, id: string, body: ApproveKeyRequestInput): Promise<KeyRequest> {
      return inUnit(userId, sessionId, async (tx) => {
        const row = await liveRequest(tx.requests, userId, id, tx.now);
        if (row.approver_session_id !== sessionId) throw forbidden("Only the device that typed the code can approve.");
        const holder = await keyHolder(tx.keys, userId, sessionId);
        if (!holder) throw forbidden("Only a device that can read your messages can approve another one.");
        if (row.status !== "confirmed") throw outOfOrder(row, "approved");
        for (const [i, wrap] of body.wraps.entries()) {
          if (wrap.recipient_key_id !== row.requester_key_id) {
            throw badRequest("Every wrap is for the asking device's key.", `wraps.${i}.recipient_key_id`);
          }
          if (wrap.sender_key_id !== holder.keyId) throw badRequest("Every wrap is from this device's key.", `wraps.${i}.sender_key_id`);
          if (!(await tx.keys.holds(userId, wrap.epoch, holder.keyId))) {
            throw badRequest(`This device does not hold epoch ${wrap.epoch}.`, `wraps.${i}.epoch`);
          }
        }
        if (!body.wraps.some((wrap) => wrap.epoch === holder.epoch)) throw badRequest("wraps must hold the current epoch's key.", "wraps");
        const { roster } = body;
        if (roster.epoch !== holder.epoch) throw badRequest("The roster row is of the current epoch.", "roster.epoch");
        if (roster.key_id !== row.requester_key_id) throw badRequest("The roster row is the asking device's.", "roster.key_id");
        if (roster.public_key !== row.requester_public_key) throw badRequest("The roster row is the asking device's.", "roster.public_key");
        if (roster.added_by_key_id !== holder.keyId) throw badRequest("The roster row is added by this device.", "roster.added_by_key_id");

        const handover = { status: "approved" as const, handover_confirmation: body.handover_confirmation };
        if (!(await tx.requests.move(userId, id, ["confirmed"], tx.now, handover))) throw outOfOrder(row, "approved");
        const wraps: KeyWrapsTable[] = body.wraps.map((w) => ({
          user_id: userId,
          epoch: w.epoch,
          recipient_key_id: w.recipient_key_id,
          sender_key_id: holder.keyId,
          mode: "auth",
          enc: w.enc,
          ciphertext: w.ciphertext,
          created_at: tx.now,
        }));
        const rosterRow: KeyRosterTable = {
          user_id: userId,
          epoch: roster.epoch,
          key_id: roster.key_id,
          public_key: roster.public_key,
          kind: "device",
          added_by_key_id: holder.keyId,
          added_at: tx.now,
          tag: roster.tag,
        };
        await tx.requests.insertHandover(wraps, rosterRow);
        return tell(tx, userId, id, "key.request_updated");
      });
    },

    /**
     * Ends a request: the asking device (its No, even after the approval, which takes the handover back), the device
     * that answered, or, before anyone answered, any device holding the current key.
     */
    deny(userId: string, sessionId: string, id: string): Promise<KeyRequest> {
      return inUnit(userId, sessionId, async (tx) => {
        const row = await liveRequest(tx.requests, userId, id, tx.now);
        const requester = row.session_id === sessionId;
        const allowed =
          requester ||
          (row.approver_session_id === sessionId && row.status !== "approved") ||
          (row.status === "pending" && (await keyHolder(tx.keys, userId, sessionId)) !== undefined);
        if (!allowed) throw forbidden("This device cannot end this request.");
        const from: KeyRequestStatus[] = requester ? [...OPEN_STATUSES, "approved"] : OPEN_STATUSES;
        if (!(await tx.requests.move(userId, id, from, tx.now, { status: "denied" }))) throw outOfOrder(row, "denied");
        if (row.status === "approved" && row.approver_key_id) {
          await tx.requests.removeHandover(userId, row.requester_key_id, row.approver_key_id);
        }
        return tell(tx, userId, id, "key.request_updated");
      });
    },
  };
}

export type KeyRequestsService = ReturnType<typeof createKeyRequestsService>;
