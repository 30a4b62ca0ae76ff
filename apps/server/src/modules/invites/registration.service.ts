/**
 * Who may make an account (issue 43): `REGISTRATION=open|invite|closed`; unset, open only until the first account
 * exists, then by invite. An invite is a one-time link an admin makes, valid `INVITE_TTL_MS`. Registration with a
 * password and sign-up through a provider both ask `admit` before any work, and `consume` the invite in the account's
 * transaction.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { APP_ROUTES, INVITE_FRAGMENT, INVITE_TTL_MS, type InviteLink, REGISTRATION_TEXT, type RegistrationMode } from "@daysync/shared";
import type { Transaction } from "kysely";
import type { Actor, Auditor } from "../../access/audit.ts";
import type { Clock } from "../../clock.ts";
import type { Database } from "../../db/schema.ts";
import { AppError } from "../../http/errors.ts";
import type { InvitesRepository } from "./invites.repository.ts";

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

export const registrationClosed = () => new AppError(403, "registration_closed", REGISTRATION_TEXT.closed);
export const inviteRequired = () => new AppError(403, "invite_required", REGISTRATION_TEXT.inviteRequired);
export const inviteInvalid = () => new AppError(403, "invite_invalid", REGISTRATION_TEXT.inviteInvalid);

/** The refusals `admit` and `consume` throw: a provider's sign-up words them as its own failure. */
export const REGISTRATION_REFUSALS = new Set(["registration_closed", "invite_required", "invite_invalid"]);

export function createRegistrationService(deps: {
  configured: RegistrationMode | undefined;
  clock: Clock;
  invites: InvitesRepository;
  /** Each invite made is written to the admin audit log. */
  audit: Auditor;
}) {
  const { clock, invites } = deps;

  async function mode(): Promise<RegistrationMode> {
    if (deps.configured) return deps.configured;
    return (await invites.anyAccount()) ? "invite" : "open";
  }

  return {
    mode,

    /**
     * Refuses at once (403) a registration the mode does not allow, before a password is hashed; answers the invite
     * the new account must use up (`consume`), undefined while registration is open.
     */
    async admit(invite: string | undefined): Promise<string | undefined> {
      const current = await mode();
      if (current === "open") return undefined;
      if (current === "closed") throw registrationClosed();
      if (!invite) throw inviteRequired();
      if (!(await invites.isUsable(hashToken(invite), clock.now()))) throw inviteInvalid();
      return invite;
    },

    /** In the new account's transaction: uses up the invite `admit` answered; a second use of it is refused. */
    async consume(trx: Transaction<Database>, userId: string, invite: string): Promise<void> {
      if (!(await invites.in(trx).consume(hashToken(invite), userId, clock.now()))) throw inviteInvalid();
    },

    /** A new one-time link to register on the server at `baseUrl` (no trailing slash), made by an admin or the command line. */
    async createInvite(actor: Actor, baseUrl: string): Promise<InviteLink> {
      const token = randomBytes(32).toString("base64url");
      const now = clock.now();
      const expiresAt = now + INVITE_TTL_MS;
      const id = randomUUID();
      await invites.insert({
        id,
        token_hash: hashToken(token),
        created_by: actor === "command line" ? null : actor.userId,
        created_at: now,
        expires_at: expiresAt,
        used_at: null,
        used_by: null,
      });
      await deps.audit(actor, "invite.created", { id, email: "an invite link" }, `once, until ${new Date(expiresAt).toISOString()}`);
      return { url: `${baseUrl}${APP_ROUTES.register}#${INVITE_FRAGMENT}=${token}`, expires_at: expiresAt };
    },
  };
}

export type RegistrationService = ReturnType<typeof createRegistrationService>;
