/**
 * Sign-in with a connected device. The new device creates a request (QR code + short code + a secret it keeps);
 * a signed-in device approves or denies it; on approval a one-time login token is minted for the waiting
 * device, which exchanges it (with its secret) for its own session.
 */
import { randomUUID } from "node:crypto";
import {
  LOGIN_TOKEN_TTL_MS,
  normalizeShortCode,
  PAIRING_TTL_MS,
  type PairingRequestCreated,
  type PairingRequestDetails,
  type PairServerMessage,
  type User,
} from "@daysync/shared";
import type { Clock } from "../../clock.ts";
import type { EventBus } from "../../events/event-bus.ts";
import { AppError, conflict, notFound } from "../../http/errors.ts";
import type { DeviceInfo } from "../accounts/accounts.service.ts";
import type { SessionAuth, SessionsRepository } from "../accounts/sessions.repository.ts";
import { loadUser } from "../accounts/user.presenter.ts";
import type { UsersRepository } from "../accounts/users.repository.ts";
import { describeUserAgent } from "../devices/device-name.ts";
import type { DevicesService } from "../devices/devices.service.ts";
import type { PairingRepository, PairingRow } from "./pairing.repository.ts";
import { matchesHash, newCode, newSecret, newShortCode, newToken, sha256 } from "./pairing-codes.ts";

/** Answered requests are kept a while (so late lookups say "already answered"), then deleted. */
const KEEP_AFTER_EXPIRY_MS = 60 * 60 * 1000;

export const loginFailed = () => new AppError(401, "login_failed", "Login failed. Try again.");
const pairingExpired = () => conflict("pairing_expired", "This code has expired. Show a new code on the other device.");
const pairingAnswered = () => conflict("pairing_answered", "This sign-in request was already answered.");

export function createPairingService(deps: {
  pairingRequests: PairingRepository;
  users: UsersRepository;
  clock: Clock;
  bus: EventBus;
  sessions: SessionsRepository;
  devices: DevicesService;
}) {
  const { pairingRequests: repo, users, clock, bus, sessions, devices } = deps;

  /** The request a QR code or a typed short code points at. */
  async function resolve(code: string): Promise<PairingRow> {
    const short = normalizeShortCode(code);
    const row = short ? await repo.findByShortCode(short) : await repo.findByCodeHash(sha256(code));
    if (!row) throw notFound("pairing code");
    return row;
  }

  function assertPending(row: PairingRow, now: number): void {
    if (row.status !== "pending") throw pairingAnswered();
    if (Number(row.expires_at) <= now) throw pairingExpired();
  }

  async function decide(code: string, auth: SessionAuth, status: "approved" | "denied"): Promise<void> {
    const now = clock.now();
    const row = await resolve(code);
    assertPending(row, now);
    if (!(await repo.decide(row.id, status, auth.userId, now))) {
      // Another answer won the race (or the code expired meanwhile): say which.
      assertPending((await repo.findById(row.id)) ?? row, now);
      throw pairingAnswered();
    }
    bus.publish("pairing.decided", { requestId: row.id });
  }

  return {
    async create(device: DeviceInfo): Promise<PairingRequestCreated> {
      const now = clock.now();
      await repo.deleteExpiredBefore(now - KEEP_AFTER_EXPIRY_MS);
      const code = newCode();
      const secret = newSecret();
      const row: PairingRow = {
        id: randomUUID(),
        code_hash: sha256(code),
        short_code: newShortCode(),
        secret_hash: sha256(secret),
        user_agent: device.userAgent.slice(0, 512),
        ip: device.ip,
        status: "pending",
        created_at: now,
        expires_at: now + PAIRING_TTL_MS,
        user_id: null,
        decided_at: null,
        token_hash: null,
        token_expires_at: null,
      };
      await repo.insert(row);
      return { request_id: row.id, code, short_code: row.short_code, secret, expires_in: PAIRING_TTL_MS };
    },

    /** What the approver sees before deciding. */
    async details(code: string): Promise<PairingRequestDetails> {
      const now = clock.now();
      const row = await resolve(code);
      assertPending(row, now);
      return {
        ...describeUserAgent(row.user_agent),
        ip: row.ip,
        created_at: Number(row.created_at),
        expires_in: Number(row.expires_at) - now,
      };
    },

    approve: (code: string, auth: SessionAuth) => decide(code, auth, "approved"),
    deny: (code: string, auth: SessionAuth) => decide(code, auth, "denied"),

    /**
     * What the waiting device should hear now, or null while the request is pending. On the first look
     * after approval the login token is minted; it is handed out once, never again.
     */
    async outcomeFor(requestId: string, secret: string): Promise<PairServerMessage | null> {
      const now = clock.now();
      const row = await repo.findById(requestId);
      if (!row || !matchesHash(secret, row.secret_hash)) return { type: "failed" };
      switch (row.status) {
        case "pending":
          return Number(row.expires_at) <= now ? { type: "expired" } : null;
        case "denied":
          return { type: "denied" };
        case "used":
          return { type: "failed" };
        case "approved": {
          if (now - Number(row.decided_at) > PAIRING_TTL_MS) return { type: "expired" };
          const token = newToken();
          const minted = await repo.mintToken(row.id, sha256(token), now + LOGIN_TOKEN_TTL_MS);
          return minted ? { type: "approved", token } : { type: "failed" };
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
      if (!(await repo.consumeToken(row.id, sha256(input.token), now))) throw loginFailed();
      const user = await loadUser(users, row.user_id);
      if (!user) throw loginFailed();
      const session = await sessions.create(row.user_id, device, now);
      await devices.announceSignIn(row.user_id, session.id);
      return { user, session };
    },
  };
}

export type PairingService = ReturnType<typeof createPairingService>;
