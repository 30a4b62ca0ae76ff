/** The one membership check of both discussion services, and the one answer to whoever fails it. */
import { notFound } from "../../http/errors.ts";
import type { AccessRepository, Membership } from "../spaces/index.ts";

/** The same answer to anyone who may not see a discussion, whatever the reason. */
export const noSuchDiscussion = () => notFound("discussion");

/** The caller's membership of an open discussion, or the same 404 as no discussion at all (a personal space too). */
export async function discussionMembership(access: AccessRepository, userId: string, spaceId: string, now: number): Promise<Membership> {
  const membership = await access.membership(userId, spaceId, now);
  if (membership?.kind !== "discussion") throw noSuchDiscussion();
  return membership;
}
