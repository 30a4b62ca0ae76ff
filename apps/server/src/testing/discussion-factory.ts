/**
 * Test data for discussions: the space and its memberships written straight into the database, as the lifecycle
 * routes would leave them, so message tests need neither those routes nor their rate limits.
 */
import { randomInt, randomUUID } from "node:crypto";
import { DISCUSSION_LIFETIME_MS, PUBLIC_ID_ALPHABET, PUBLIC_ID_LENGTH } from "@daysync/shared";
import type { Db } from "../db/database.ts";

export interface TestDiscussion {
  id: string;
  publicId: string;
  title: string;
}

const publicId = () => Array.from({ length: PUBLIC_ID_LENGTH }, () => PUBLIC_ID_ALPHABET[randomInt(PUBLIC_ID_ALPHABET.length)]).join("");

/** A discussion created by `ownerId` now, with the owner as its first member; returns it and the owner's member id. */
export async function createDiscussion(
  db: Db,
  input: { ownerId: string; ownerName: string; title?: string; now: number; endsAt?: number },
): Promise<TestDiscussion & { ownerMemberId: string }> {
  const discussion = { id: randomUUID(), publicId: publicId(), title: input.title ?? "Trip planning" };
  await db
    .insertInto("spaces")
    .values({
      id: discussion.id,
      kind: "discussion",
      title: discussion.title,
      public_id: discussion.publicId,
      created_by: input.ownerId,
      created_at: input.now,
      updated_at: input.now,
      ends_at: input.endsAt ?? input.now + DISCUSSION_LIFETIME_MS,
    })
    .execute();
  const ownerMemberId = await addMember(db, discussion.id, input.ownerId, input.ownerName, input.now, "owner");
  return { ...discussion, ownerMemberId };
}

/** Makes the user a member (role "member" unless told); returns the member id the others know them by. */
export async function addMember(
  db: Db,
  discussionId: string,
  userId: string,
  displayName: string,
  now: number,
  role: "owner" | "member" = "member",
): Promise<string> {
  const id = randomUUID();
  await db
    .insertInto("space_members")
    .values({
      id,
      space_id: discussionId,
      user_id: userId,
      display_name: displayName,
      role,
      joined_at: now,
      last_read_at: 0,
      left_at: null,
      left_reason: null,
    })
    .execute();
  return id;
}

/** The member left or was removed: the row stays (their messages keep their name) and grants nothing. */
export async function endMembership(db: Db, discussionId: string, userId: string, reason: "left" | "removed", now: number): Promise<void> {
  await db
    .updateTable("space_members")
    .set({ left_at: now, left_reason: reason })
    .where("space_id", "=", discussionId)
    .where("user_id", "=", userId)
    .execute();
}
