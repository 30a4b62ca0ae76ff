/**
 * Sign-in with a connected device. The new device creates a request (QR code + short code + a secret it keeps);
 * a signed-in device approves or denies it; on approval a one-time login token is minted for the waiting
 * device, which exchanges it (with its secret) for its own session.
 *
 * Add a device (decision 013) runs the same rows the other way round: the signed-in device makes an offer
 * (status "offered"), the new device opens it by code ("join": it becomes an ordinary pending request whose
 * secret the new device holds), and only the session that made the offer may approve or deny it.
 */
import { randomUUID } from "node:crypto";
import {
  keyWrapSchema,
  LOGIN_TOKEN_TTL_MS,
  normalizeCodeHalf,
  normalizeShortCode,
  PAIRING_TTL_MS,
  type PairingHandover,
  type PairingJoined,
  type PairingKeyInput,
  type PairingOfferCreated,
  type PairingRequestBody,
  type PairingRequestCreated,
  type PairingRequestDetails,
  type PairServerMessage,
  pairingHandoverSchema,
  rosterEntrySchema,
  type User,
} from "@daysync/shared";
import { z } from "zod";
import type { Clock } from "../../clock.ts";
import type { UnitOfWork } from "../../feed/unit-of-work.ts";
import type { SessionAuth } from "../../http/auth.ts";
import { AppError, conflict, notFound } from "../../http/errors.ts";
import { describeUserAgent } from "../../presenters/device-name.ts";
import type { DeviceInfo, SessionsRepository, UsersRepository } from "../accounts/index.ts";
import { loadUser } from "../accounts/index.ts";
import type { DevicesService } from "../devices/index.ts";
import type { KeyHandover } from "../keys/index.ts";
import { keyIdOf } from "../keys/index.ts";
import type { PairingRepository, PairingRow } from "./pairing.repository.ts";
import { matchesHash, newCode, newLookupCode, newSecret, newShortCode, newToken, sha256 } from "./pairing-codes.ts";
import { pairingSteps } from "./pairing-step.ts";
import { presentTypedExchange } from "./pairing-typed.service.ts";

/** Answered requests are kept a while (so late lookups say "already answered"), then deleted. */
const KEEP_AFTER_EXPIRY_MS = 60 * 60 * 1000;

export const loginFailed = () => new AppError(401, "login_failed", "Login failed. Try again.");
const pairingExpired = () => conflict("pairing_expired", "This code has expired. Show a new code on the other device.");
const pairingAnswered = () => conflict("pairing_answered", "This sign-in request was already answered.");
const offerUsed = () => conflict("pairing_answered", "This code was already used. Show a new code on the other device.");
type Decision = { status: "approved"; handover?: PairingHandover } | { status: "denied" };

const offerUnclaimed = () => conflict("pairing_unclaimed", "No device has opened this code yet.");

const detailsOf = (row: PairingRow, now: number): PairingRequestDetails => {
  const { browser, os, name } = describeUserAgent(row.user_agent);
  return {
    request_id: row.id,
    browser,
    os,
    name,
    ip: row.ip,
    created_at: Number(row.created_at),
    expires_in: Number(row.expires_at) - now,
    public_key: row.public_key ?? null,
    key_proof: row.key_proof ?? null,
    ...(row.requester_share ? { exchange: presentTypedExchange(row) } : {}),
  };
};

/** A typed code's handover (pairing-typed.service.ts): auth-mode wraps from the answering device's key. */
const typedHandoverSchema = z.object({ wraps: z.array(keyWrapSchema), roster: rosterEntrySchema });

/** The asking device's key as the row keeps it; its key id is checked now, so a bad key is a 400 naming the field. */
function keyOf(input: PairingKeyInput): { publicKey: string | null; keyProof: string | null } {
  if (input.public_key === undefined || input.key_proof === undefined) return { publicKey: null, keyProof: null };
  keyIdOf(input.public_key);
  return { publicKey: input.public_key, keyProof: input.key_proof };
}

/** The handover kept on an approved row; the exchange reads it back through the same schema. */
function storedHandover(row: PairingRow): PairingHandover | null {
  if (!row.handover) return null;
  const parsed = (row.requester_share && row.handover_confirmation ? typedHandoverSchema : pairingHandoverSchema).safeParse(
    JSON.parse(row.handover),
  );
  return parsed.success ? parsed.data : null;
}

export function createPairingService(deps: {
  pairingRequests: PairingRepository;
  users: UsersRepository;
  clock: Clock;
  /** Where a step commits; the device waiting on it hears `pairing.decided` only once it has. */
  unitOfWork: UnitOfWork;
  sessions: SessionsRepository;
  devices: DevicesService;
  keyHandover: KeyHandover;
}) {
  const { pairingRequests: repo, users, clock, unitOfWork, sessions, devices, keyHandover } = deps;
  const step = pairingSteps(unitOfWork, repo);

  /** The request (or, with `offer`, the offer) a QR code or a typed short code points at. */
  async function resolve(code: string, offer = false): Promise<PairingRow> {
    // A typed code's lookup half (pairing-exchange.ts) finds a request or an offer; its other half never comes here.
    const short = normalizeShortCode(code) ?? normalizeCodeHalf(code);
    const row = short ? await repo.findByShortCode(short, offer) : await repo.findByCodeHash(sha256(code), offer);
    if (!row) throw notFound("pairing code");
    return row;
  }

  /**
   * Whether an approval still counts (issue 42): the session that gave it is still signed in and the account is not
   * disabled. Read from the database, not a cache.
   */
  async function approvalStands(userId: string, approvedBy: string | null): Promise<boolean> {
    if (!approvedBy || !(await sessions.exists(approvedBy))) return false;
    const standing = await users.standing(userId);
    return standing !== undefined && standing.disabled_at === null;
  }

  /** Whether the row is an offer made by this very session (of this account). */
  const isOwnOffer = (row: PairingRow, auth: SessionAuth): boolean => row.offered_by === auth.sessionId && row.user_id === auth.userId;

  async function decideOffer(offerId: string, auth: SessionAuth, decision: Decision): Promise<void> {
    const now = clock.now();
    const row = await repo.findById(offerId);
    // Anyone but the session that made the offer is told there is no such offer.
    if (!row || !isOwnOffer(row, auth)) throw notFound("offer");
    if (row.status === "offered") throw Number(row.expires_at) <= now ? pairingExpired() : offerUnclaimed();
    await answer(row, auth, decision, now, auth.sessionId);
  }

  function assertPending(row: PairingRow, now: number): void {
    if (row.status !== "pending") throw pairingAnswered();
    if (Number(row.expires_at) <= now) throw pairingExpired();
  }

  async function decide(code: string, auth: SessionAuth, decision: Decision): Promise<void> {
    const now = clock.now();
    await answer(await resolve(code), auth, decision, now);
  }

  /**
   * Answers a pending request (an opened offer when `offeredBy` is given), and tells the waiting device. An approval
   * may carry the key handover for the asking device's key, checked against the approver's own account first.
   */
  async function answer(row: PairingRow, auth: SessionAuth, decision: Decision, now: number, offeredBy?: string) {
    assertPending(row, now);
    const { status } = decision;
    const handover = status === "approved" ? decision.handover : undefined;
    if (handover) await keyHandover.check(auth.userId, auth.sessionId, row.public_key ?? null, handover);
    const stored = handover ? JSON.stringify(handover) : null;
    if (!(await step(row.id, (rows) => rows.decide(row.id, status, auth, now, offeredBy, stored)))) {
      // Another answer won the race (or the code expired meanwhile): say which.
      assertPending((await repo.findById(row.id)) ?? row, now);
      throw pairingAnswered();
    }
  }

  /**
   * A lookup half no live request (or, with `offer`, no live offer) shows (they are few: 20 bits leave room), so the
   * typed code finds one.
   */
  async function freeLookupCode(now: number, offer = false): Promise<string> {
    for (;;) {
      const lookup = newLookupCode();
      const newest = await repo.findByShortCode(lookup, offer);
      const live = ["offered", "pending", "answered", "confirmed", "approved"];
      if (!newest || Number(newest.expires_at) <= now || !live.includes(newest.status)) {
        return lookup;
      }
    }
  }

  /** A fresh pairing row with its code; the caller says whose it is and in which state it starts. */
  function newRow(
    code: string,
    now: number,
    start: Pick<PairingRow, "secret_hash" | "user_agent" | "ip" | "status" | "user_id" | "offered_by" | "public_key" | "key_proof">,
  ): PairingRow {
    return {
      id: randomUUID(),
      code_hash: sha256(code),
      short_code: newShortCode(),
      created_at: now,
      expires_at: now + PAIRING_TTL_MS,
      decided_at: null,
      token_hash: null,
      token_expires_at: null,
      handover: null,
      approved_by: null,
      requester_share: null,
      answered_by: null,
      approver_key_id: null,
      approver_public_key: null,
      approver_share: null,
      approver_confirmation: null,
      requester_confirmation: null,
      handover_confirmation: null,
      failures: 0,
      ...start,
    };
  }

  return {
    /** `requesterShare`: the code will be typed with the new device's password half (pairing-exchange.ts). */
    async create(device: DeviceInfo, key: PairingKeyInput = {}, requesterShare?: string): Promise<PairingRequestCreated> {
      const { publicKey, keyProof } = keyOf(key);
      const now = clock.now();
      await repo.deleteExpiredBefore(now - KEEP_AFTER_EXPIRY_MS);
      const code = newCode();
      const secret = newSecret();
      const row = newRow(code, now, {
        public_key: publicKey,
        key_proof: keyProof,
        secret_hash: sha256(secret),
        user_agent: device.userAgent.slice(0, 512),
        ip: device.ip,
        status: "pending",
        user_id: null,
        offered_by: null,
      });
      if (requesterShare) {
        row.requester_share = requesterShare;
        row.short_code = await freeLookupCode(now);
      }
      await repo.insert(row);
      return { request_id: row.id, code, short_code: row.short_code, secret, expires_in: PAIRING_TTL_MS };
    },

    /**
     * Add a device: a code for the new device to open. It grants nothing until this session approves. Its short code
     * is a typed code's lookup half: the offering device adds its password half, which never comes here.
     */
    async createOffer(auth: SessionAuth): Promise<PairingOfferCreated> {
      const now = clock.now();
      await repo.deleteExpiredBefore(now - KEEP_AFTER_EXPIRY_MS);
      const code = newCode();
      const row = newRow(code, now, {
        // Nobody holds a secret until a device opens the offer; this one is thrown away unseen.
        secret_hash: sha256(newSecret()),
        user_agent: "",
        ip: "",
        status: "offered",
        user_id: auth.userId,
        offered_by: auth.sessionId,
        public_key: null,
        key_proof: null,
      });
      row.short_code = await freeLookupCode(now, true);
      await repo.insert(row);
      return { offer_id: row.id, code, short_code: row.short_code, expires_in: PAIRING_TTL_MS };
    },

    /**
     * The new device opens an offer: once only, while it is fresh. From then on it waits on the pairing
     * channel with its secret, exactly like a device that asked by itself; the approval has PAIRING_TTL_MS. With
     * `requester_share` (the typed code's password half was typed) the offering device runs the typed code's exchange.
     */
    async join(code: string, device: DeviceInfo, body: PairingRequestBody = {}): Promise<PairingJoined> {
      const { requester_share, ...key } = body;
      const { publicKey, keyProof } = keyOf(key);
      const now = clock.now();
      const row = await resolve(code, true);
      const offeredBy = row.offered_by;
      if (!offeredBy || !row.user_id) throw notFound("pairing code");
      if (row.status !== "offered") throw offerUsed();
      if (Number(row.expires_at) <= now) throw pairingExpired();
      const approver = await devices.find(row.user_id, offeredBy);
      if (!approver) throw notFound("pairing code");
      const secret = newSecret();
      const claim = {
        secretHash: sha256(secret),
        userAgent: device.userAgent.slice(0, 512),
        ip: device.ip,
        publicKey,
        keyProof,
        requesterShare: requester_share ?? null,
      };
      if (!(await step(row.id, (rows) => rows.claim(row.id, claim, now, now + PAIRING_TTL_MS)))) {
        const latest = (await repo.findById(row.id)) ?? row;
        if (latest.status !== "offered") throw offerUsed();
        throw pairingExpired();
      }
      return { request_id: row.id, secret, expires_in: PAIRING_TTL_MS, device_name: approver.name };
    },

    /** What the device watching its offer should hear now, or null while no device has opened it. */
    async offerOutcomeFor(offerId: string, auth: SessionAuth | null): Promise<PairServerMessage | null> {
      const now = clock.now();
      const row = await repo.findById(offerId);
      if (!auth || !row || !isOwnOffer(row, auth)) return { type: "failed" };
      if (row.status !== "offered" && row.status !== "pending") return { type: "failed" };
      if (Number(row.expires_at) <= now) return { type: "expired" };
      return row.status === "pending" ? { type: "claimed", request: detailsOf(row, now) } : null;
    },

    approveOffer: (offerId: string, auth: SessionAuth, handover?: PairingHandover) =>
      decideOffer(offerId, auth, { status: "approved", handover }),
    denyOffer: (offerId: string, auth: SessionAuth) => decideOffer(offerId, auth, { status: "denied" }),

    /** What the approver sees before deciding. */
    async details(code: string): Promise<PairingRequestDetails> {
      const now = clock.now();
      const row = await resolve(code);
      assertPending(row, now);
      return detailsOf(row, now);
    },

    approve: (code: string, auth: SessionAuth, handover?: PairingHandover) => decide(code, auth, { status: "approved", handover }),
    deny: (code: string, auth: SessionAuth) => decide(code, auth, { status: "denied" }),

    /**
     * What the waiting device should hear now, or null while the request is pending. On the first look
     * after approval the login token is minted; it is handed out once, never again.
     */
    async outcomeFor(requestId: string, secret: string): Promise<PairServerMessage | null> {
      const now = clock.now();
      const row = await repo.findById(requestId);
      if (!row || !matchesHash(secret, row.secret_hash)) return { type: "failed" };
      switch (row.status) {
        case "offered":
          return { type: "failed" };
        case "pending":
          return Number(row.expires_at) <= now ? { type: "expired" } : null;
        case "answered":
        case "confirmed":
          // A typed code's exchange goes on: the new device hears each step (the channel stays open).
          return Number(row.expires_at) <= now ? { type: "expired" } : { type: "exchange", exchange: presentTypedExchange(row) };
        case "failed":
          return { type: "failed" };
        case "denied":
          return { type: "denied" };
        case "used":
          return { type: "failed" };
        case "approved": {
          if (now - Number(row.decided_at) > PAIRING_TTL_MS) return { type: "expired" };
          const token = newToken();
          const minted = await repo.mintToken(row.id, sha256(token), now + LOGIN_TOKEN_TTL_MS);
          if (!minted) return { type: "failed" };
          return row.requester_share ? { type: "approved", token, exchange: presentTypedExchange(row) } : { type: "approved", token };
        }
      }
    },

    /** Time left on a pending request, for the waiting channel's own expiry timer. */
    async expiresIn(requestId: string): Promise<number> {
      const row = await repo.findById(requestId);
      return row ? Number(row.expires_at) - clock.now() : 0;
    },

    /** One-time token + the asking device's secret → a new session on the approver's account. */
    async exchange(
      input: { request_id: string; secret: string; token: string },
      device: DeviceInfo,
    ): Promise<{ user: User; session: { id: string; token: string } }> {
      const now = clock.now();
      const row = await repo.findById(input.request_id);
      if (!row?.user_id || !matchesHash(input.secret, row.secret_hash)) throw loginFailed();
      const userId = row.user_id;
      if (!(await approvalStands(userId, row.approved_by))) throw loginFailed();
      if (!(await repo.consumeToken(row.id, sha256(input.token), now))) throw loginFailed();
      const user = await loadUser(users, userId);
      if (!user) throw loginFailed();
      const session = await sessions.create(userId, device, now);
      // The approver was signed out, or the account disabled, while this session was made: it goes again, unused.
      if (!(await approvalStands(userId, row.approved_by))) {
        await sessions.remove(session.id);
        throw loginFailed();
      }
      if (row.public_key) await keyHandover.receive(userId, session.id, row.public_key, storedHandover(row));
      await devices.announceSignIn(userId, session.id);
      return { user, session };
    },
  };
}

export type PairingService = ReturnType<typeof createPairingService>;
