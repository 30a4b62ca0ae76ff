/**
 * A QR pairing's typed code, one code and one round (docs/protocol/encryption.md, "QR pairing handover", typed code):
 * the server relays the approval's CPace exchange inside the pairing request, as key-requests.service.ts does for a
 * locked device. The new device (anonymous, proven by its request's secret) asked with its share; a signed-in device
 * holding the current key answers; the new device confirms or reports a wrong code (the third ends the request); the
 * answering device hands over and so approves the sign-in. It opens and checks no cryptography: who, order, addresses.
 * Add a device runs it the other way round: the new device joined an offer with its share (it typed the code), and
 * only the session that made the offer may look at, answer, approve or end it.
 */
import {
  type ApproveKeyRequestInput,
  KEY_REQUEST_MAX_FAILURES,
  type KeyRequestStatus,
  type PairingHandover,
  type TypedPairingExchange,
} from "@daysync/shared";
import type { Clock } from "../../clock.ts";
import type { UnitOfWork } from "../../feed/unit-of-work.ts";
import type { SessionAuth } from "../../http/auth.ts";
import { badRequest, conflict, forbidden, notFound } from "../../http/errors.ts";
import { type KeyHandover, type KeysRepository, keyIdOf } from "../keys/index.ts";
import type { PairingRepository, PairingRow } from "./pairing.repository.ts";
import { matchesHash } from "./pairing-codes.ts";
import { pairingSteps } from "./pairing-step.ts";

const LIVE: PairingRow["status"][] = ["pending", "answered", "confirmed"];

const outOfOrder = (row: PairingRow, step: string) =>
  conflict("pairing_state", `This sign-in request is ${row.status}, so it cannot be ${step} now.`);

/** The exchange as both sides read it; a used request reads as approved (its exchange is over). */
export function presentTypedExchange(row: PairingRow): TypedPairingExchange {
  const status: KeyRequestStatus = row.status === "used" ? "approved" : row.status === "offered" ? "pending" : row.status;
  const publicKey = row.public_key ?? "";
  return {
    request_id: row.id,
    status,
    requester_public_key: publicKey,
    requester_key_id: publicKey ? keyIdOf(publicKey) : "",
    requester_share: row.requester_share ?? "",
    approver_public_key: row.approver_public_key,
    approver_key_id: row.approver_key_id,
    approver_share: row.approver_share,
    approver_confirmation: row.approver_confirmation,
    requester_confirmation: row.requester_confirmation,
    handover_confirmation: row.handover_confirmation,
    failures: Number(row.failures),
    expires_at: Number(row.expires_at),
  };
}

export function createPairingTypedService(deps: {
  pairingRequests: PairingRepository;
  keys: KeysRepository;
  keyHandover: KeyHandover;
  clock: Clock;
  /** Where a step commits; the devices on the request hear `pairing.decided` only once it has. */
  unitOfWork: UnitOfWork;
}) {
  const { pairingRequests: repo, keys, keyHandover, clock } = deps;
  const pairingStep = pairingSteps(deps.unitOfWork, repo);

  /**
   * The typed request, live: one without an exchange, or one that never was is not found; so is an offer to anyone
   * signed in but the session that made it (`auth` undefined: the new device, proven by its secret afterwards).
   */
  async function typedRow(id: string, auth?: SessionAuth | null): Promise<PairingRow> {
    const row = await repo.findById(id);
    if (!row || row.requester_share === null) throw notFound("sign-in request");
    const offerOfOther = row.offered_by !== null && (row.offered_by !== auth?.sessionId || row.user_id !== auth?.userId);
    if (auth !== undefined && auth !== null && offerOfOther) throw notFound("sign-in request");
    if (Number(row.expires_at) <= clock.now() && LIVE.includes(row.status)) {
      throw conflict("pairing_expired", "This code has expired. Show a new code on the other device.");
    }
    return row;
  }

  /** The session's key id when it holds the account's current epoch: only such a device may answer. */
  async function keyHolder(auth: SessionAuth): Promise<{ keyId: string; publicKey: string; epoch: number } | undefined> {
    const [device, account] = await Promise.all([keys.deviceKey(auth.userId, auth.sessionId), keys.account(auth.userId)]);
    const epoch = account?.epoch ?? null;
    if (!device?.key_id || !device.public_key || epoch === null) return undefined;
    if (!(await keys.holds(auth.userId, epoch, device.key_id))) return undefined;
    return { keyId: device.key_id, publicKey: device.public_key, epoch };
  }

  async function move(row: PairingRow, from: PairingRow["status"][], set: Partial<PairingRow>, step: string) {
    if (!(await pairingStep(row.id, (rows) => rows.moveTyped(row.id, from, clock.now(), set)))) {
      throw outOfOrder((await repo.findById(row.id)) ?? row, step);
    }
    const moved = await repo.findById(row.id);
    if (!moved) throw notFound("sign-in request");
    return presentTypedExchange(moved);
  }

  function assertSecret(row: PairingRow, secret: string) {
    if (!matchesHash(secret, row.secret_hash)) throw forbidden("Only the device that asked can take this step.");
  }

  return {
    async view(auth: SessionAuth, id: string): Promise<TypedPairingExchange> {
      return presentTypedExchange(await typedRow(id, auth));
    },

    /** A signed-in device holding the current key answers with the typed code's share: one at a time. */
    async answer(auth: SessionAuth, id: string, body: { approver_share: string; approver_confirmation: string }) {
      const row = await typedRow(id, auth);
      const holder = await keyHolder(auth);
      if (!holder) throw forbidden("Only a device that can read your messages can approve another one.");
      if (row.status !== "pending") throw conflict("pairing_taken", "Another device already answered this sign-in request.");
      return move(
        row,
        ["pending"],
        {
          status: "answered",
          user_id: auth.userId,
          answered_by: auth.sessionId,
          approver_key_id: holder.keyId,
          approver_public_key: holder.publicKey,
          approver_share: body.approver_share,
          approver_confirmation: body.approver_confirmation,
        },
        "answered",
      );
    },

    /** The new device found the answer's confirmation good: the codes matched. */
    async confirm(id: string, body: { secret: string; requester_confirmation: string }) {
      const row = await typedRow(id);
      assertSecret(row, body.secret);
      return move(row, ["answered"], { status: "confirmed", requester_confirmation: body.requester_confirmation }, "confirmed");
    },

    /** The new device found the answer wrong (a wrong code): the answer is cleared; the third ends the request. */
    async reject(id: string, body: { secret: string }) {
      const row = await typedRow(id);
      assertSecret(row, body.secret);
      const failures = Number(row.failures) + 1;
      return move(
        row,
        ["answered"],
        {
          status: failures >= KEY_REQUEST_MAX_FAILURES ? "failed" : "pending",
          failures,
          // An offer stays the offering account's.
          user_id: row.offered_by === null ? null : row.user_id,
          answered_by: null,
          approver_key_id: null,
          approver_public_key: null,
          approver_share: null,
          approver_confirmation: null,
        },
        "rejected",
      );
    },

    /**
     * The answering device hands over (auth-mode wraps from its key for the new device's key, the row, the tag): the
     * sign-in is approved with it, and the exchange moves the handover into the key tables.
     */
    async approve(auth: SessionAuth, id: string, body: ApproveKeyRequestInput) {
      const row = await typedRow(id, auth);
      if (row.answered_by !== auth.sessionId || row.user_id !== auth.userId)
        throw forbidden("Only the device that typed the code can approve.");
      if (row.status !== "confirmed") throw outOfOrder(row, "approved");
      const holder = await keyHolder(auth);
      if (!holder || holder.keyId !== row.approver_key_id)
        throw forbidden("Only a device that can read your messages can approve another one.");
      const recipient = keyIdOf(row.public_key ?? "");
      for (const [i, wrap] of body.wraps.entries()) {
        if (wrap.recipient_key_id !== recipient)
          throw badRequest("Every wrap is for the asking device's key.", `wraps.${i}.recipient_key_id`);
      }
      if (!body.wraps.some((wrap) => wrap.epoch === holder.epoch)) throw badRequest("wraps must hold the current epoch's key.", "wraps");
      const handover: PairingHandover = { wraps: body.wraps, roster: body.roster };
      await keyHandover.check(auth.userId, auth.sessionId, row.public_key, handover);
      return move(
        row,
        ["confirmed"],
        {
          status: "approved",
          approved_by: auth.sessionId,
          decided_at: clock.now(),
          handover: JSON.stringify(handover),
          handover_confirmation: body.handover_confirmation,
        },
        "approved",
      );
    },

    /**
     * Ends the request: the new device (by its secret, even once approved, before it signs in), the device that
     * answered, or, before anyone answered, any signed-in device (as Deny by code).
     */
    async deny(auth: SessionAuth | null, id: string, body: { secret?: string }) {
      const found = await typedRow(id);
      const requester = body.secret !== undefined && matchesHash(body.secret, found.secret_hash);
      // A signed-in device other than the offering one is told there is no such request.
      const row = requester ? found : await typedRow(id, auth);
      const answering = auth !== null && row.answered_by === auth.sessionId;
      if (!requester && !answering && !(auth !== null && row.status === "pending")) throw forbidden("This device cannot end this request.");
      const from: PairingRow["status"][] = requester ? [...LIVE, "approved"] : LIVE;
      return move(row, from, { status: "denied", handover: null }, "denied");
    },
  };
}

export type PairingTypedService = ReturnType<typeof createPairingTypedService>;
