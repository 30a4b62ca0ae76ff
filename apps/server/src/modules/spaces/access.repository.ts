/**
 * Who may read and write a space (decision 016): the one place that answers it. Every route, upload, download,
 * live event and replay of space data asks here, never by comparing `user_id` in its own query.
 */
import type { Transaction } from "kysely";
import type { Db } from "../../db/database.ts";
import type { Database, SpaceMembersTable, SpacesTable } from "../../db/schema.ts";

export interface Membership {
  spaceId: string;
  kind: SpacesTable["kind"];
  /** The member id other members know; a personal space's is its owner's user id. */
  memberId: string;
  role: SpaceMembersTable["role"];
  displayName: string;
  /** A discussion's end; null for a personal space. */
  endsAt: number | null;
}

export function createAccessRepository(db: Db) {
  return {
    in: (trx: Transaction<Database>) => createAccessRepository(trx),

    /**
     * The user's membership of the space, or undefined when they are not (or no longer) a member, or the space
     * has ended (a discussion past `ends_at`, even before the sweeper deletes it): callers answer that with the
     * same 404 as a space that never existed.
     */
    async membership(userId: string, spaceId: string, now: number): Promise<Membership | undefined> {
      const row = await db
        .selectFrom("space_members")
        .innerJoin("spaces", "spaces.id", "space_members.space_id")
        .select([
          "spaces.id as spaceId",
          "spaces.kind",
          "spaces.ends_at",
          "space_members.id as memberId",
          "space_members.role",
          "space_members.display_name",
        ])
        .where("space_members.space_id", "=", spaceId)
        .where("space_members.user_id", "=", userId)
        .where("space_members.left_at", "is", null)
        .executeTakeFirst();
      if (!row) return undefined;
      const endsAt = row.ends_at === null ? null : Number(row.ends_at);
      if (endsAt !== null && endsAt <= now) return undefined;
      return { spaceId: row.spaceId, kind: row.kind, memberId: row.memberId, role: row.role, displayName: row.display_name, endsAt };
    },

    /** Ids of the spaces the user is a member of at `now` (the same answer as `membership`, for all at once). */
    async spaceIdsOf(userId: string, now: number): Promise<Set<string>> {
      const rows = await db
        .selectFrom("space_members")
        .innerJoin("spaces", "spaces.id", "space_members.space_id")
        .select("spaces.id")
        .where("space_members.user_id", "=", userId)
        .where("space_members.left_at", "is", null)
        .where((eb) => eb.or([eb("spaces.ends_at", "is", null), eb("spaces.ends_at", ">", now)]))
        .execute();
      return new Set(rows.map((row) => row.id));
    },
  };
}

export type AccessRepository = ReturnType<typeof createAccessRepository>;
