/**
 * Moving a discussion's end later (decision 016): by a Premium member, or paid for through a checkout (issue 30), to
 * at most `DISCUSSION_MAX_AHEAD_DAYS` ahead of now.
 */
import {
  API_ERROR_CODES,
  canExtendBy,
  DAY_MS,
  DISCUSSION_MAX_AHEAD_DAYS,
  type DiscussionDetails,
  FREE_TYPE_ID,
  PREMIUM_PLAN,
} from "@daysync/shared";
import type { Action } from "../../access/policies.ts";
import type { Clock } from "../../clock.ts";
import type { UnitOfWork, Work } from "../../feed/unit-of-work.ts";
import { AppError, conflict } from "../../http/errors.ts";
import type { PlansRepository } from "../plans/index.ts";
import type { Membership, SpacesRepository } from "../spaces/index.ts";
import { noSuchDiscussion } from "./discussion-access.ts";
import { recordUpserted } from "./discussion-changes.ts";
import type { DiscussionsRepository } from "./discussions.repository.ts";

/** What a paid extension did: how much of the paid time it applied, and how much it could not (and why). */
export interface PaidExtension {
  applied_ms: number;
  excess_ms: number;
  reason?: "granted_before" | "discussion_gone" | "not_a_member" | "past_the_limit";
}

/** 409 when `days` more would end it past `DISCUSSION_MAX_AHEAD_DAYS` from now. */
function refuseTooFar(endsAt: number, days: number, now: number): void {
  if (canExtendBy(endsAt, days, now)) return;
  throw conflict(
    API_ERROR_CODES.extensionTooFar,
    `A discussion can end at most ${DISCUSSION_MAX_AHEAD_DAYS} days from now: this one cannot be extended by ${days} days.`,
  );
}

export function createDiscussionExtension(deps: {
  clock: Clock;
  unitOfWork: UnitOfWork;
  discussions: DiscussionsRepository;
  spaces: SpacesRepository;
  plans: PlansRepository;
  /** The caller's membership once the policies allow the action (the discussions service's check). */
  allowed: (userId: string, spaceId: string, action: Action, refusal: string) => Promise<Membership>;
  details: (userId: string, spaceId: string) => Promise<DiscussionDetails>;
}) {
  const { clock, unitOfWork, discussions: repo, spaces, allowed } = deps;

  return {
    /** A premium member moves the end `days` later than it is now, to at most `DISCUSSION_MAX_AHEAD_DAYS` ahead of now. */
    async extend(userId: string, spaceId: string, days: number): Promise<DiscussionDetails> {
      await allowed(userId, spaceId, "discussion.extend", "You cannot extend this discussion.");
      const plan = await deps.plans.currentPlanOf(userId);
      if (!plan || Number(plan.subscription_type_id) === FREE_TYPE_ID) {
        throw new AppError(403, API_ERROR_CODES.premiumRequired, `Extending a discussion needs the ${PREMIUM_PLAN.title}.`);
      }
      const now = clock.now();
      await unitOfWork.forSpace(spaceId, async (work, memberIds) => {
        const locked = repo.in(work.trx);
        const row = await locked.find(spaceId);
        if (!row || row.ends_at <= now) throw noSuchDiscussion();
        refuseTooFar(row.ends_at, days, now);
        await spaces.in(work.trx).setEnd(spaceId, row.ends_at + days * DAY_MS, now);
        await recordUpserted(work, repo, spaceId, memberIds);
      });
      return deps.details(userId, spaceId);
    },

    /**
     * Whether a member may pay to extend it by `days`: refused before any checkout (404 to a non-member, 409 past
     * `DISCUSSION_MAX_AHEAD_DAYS`), so that nobody pays for what cannot be granted.
     */
    async assertExtendable(userId: string, spaceId: string, days: number): Promise<void> {
      await allowed(userId, spaceId, "discussion.extend", "You cannot extend this discussion.");
      const row = await repo.find(spaceId);
      const now = clock.now();
      if (!row || row.ends_at <= now) throw noSuchDiscussion();
      refuseTooFar(row.ends_at, days, now);
    },

    /**
     * A paid extension, for everyone: `claim`, in the same transaction, says whether this payment is granted now
     * (false: it was before), so each payment extends once. The limits are checked again as it is applied (issue 42:
     * checkouts opened before any was paid each passed alone, and the payer may have left): the end moves to at most
     * `DISCUSSION_MAX_AHEAD_DAYS` ahead, only for a member; what could not be applied is `excess_ms`, with `reason`.
     */
    async extendPaid(
      spaceId: string,
      payerId: string,
      days: number,
      claim: (trx: Work["trx"]) => Promise<boolean>,
    ): Promise<PaidExtension> {
      const now = clock.now();
      const paid = days * DAY_MS;
      return unitOfWork.forSpace(spaceId, async (work, memberIds) => {
        const locked = repo.in(work.trx);
        const row = await locked.find(spaceId);
        if (!(await claim(work.trx))) return { applied_ms: 0, excess_ms: 0, reason: "granted_before" };
        if (!row || row.ends_at <= now) return { applied_ms: 0, excess_ms: paid, reason: "discussion_gone" };
        if (!memberIds.includes(payerId)) return { applied_ms: 0, excess_ms: paid, reason: "not_a_member" };
        const end = Math.min(row.ends_at + paid, now + DISCUSSION_MAX_AHEAD_DAYS * DAY_MS);
        if (end <= row.ends_at) return { applied_ms: 0, excess_ms: paid, reason: "past_the_limit" };
        await spaces.in(work.trx).setEnd(spaceId, end, now);
        await recordUpserted(work, repo, spaceId, memberIds);
        return { applied_ms: end - row.ends_at, excess_ms: paid - (end - row.ends_at) };
      });
    },
  };
}
