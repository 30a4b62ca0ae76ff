/** What a discussion's change logs are told: the discussion as it now is, or that it closed for someone, and why. */
import type { DiscussionClosedReason } from "@daysync/shared";
import type { Work } from "../../feed/unit-of-work.ts";
import type { DiscussionsRepository } from "./discussions.repository.ts";

/** Records the discussion as it now is, for these members. */
export async function recordUpserted(work: Work, repo: DiscussionsRepository, spaceId: string, userIds: string[]): Promise<void> {
  const locked = repo.in(work.trx);
  const row = await locked.find(spaceId);
  if (!row) return;
  const facts = { discussion: row, members: await locked.members(spaceId), history: await locked.memberHistory(spaceId) };
  await work.record(userIds, { kind: "discussion.upserted", discussionId: spaceId }, facts);
}

export async function recordClosed(work: Work, spaceId: string, userIds: string[], reason: DiscussionClosedReason): Promise<void> {
  const change = { kind: "discussion.closed", discussionId: spaceId, reason } as const;
  await work.record(userIds, change);
}
