/**
 * Discussions (decision 016): spaces of kind "discussion" and their members. Who may see one is asked of the
 * access repository; this reads and writes what members see and do.
 */
import type { Transaction } from "kysely";
import type { Db } from "../../db/database.ts";
import type { Database, SpaceMembersTable } from "../../db/schema.ts";
import type { MemberHistoryRow, MemberRow } from "../../presenters/discussion.presenter.ts";

/** An open discussion's row with what every member sees of it besides its members. */
export interface SpaceRow {
  id: string;
  public_id: string;
  title: string;
  created_at: number;
  ends_at: number;
  member_count: number;
  last_message_at: number | null;
  /** An encrypted discussion's current generation; null for one in clear. */
  room_generation: number | null;
}

/** One member's view of a discussion: the row with their own membership and unread count. */
export interface MySpaceRow extends SpaceRow {
  member_id: string;
  display_name: string;
  role: SpaceMembersTable["role"];
  unread: number;
}

const num = (value: number | string | bigint | null | undefined) => (value === null || value === undefined ? null : Number(value));

export function createDiscussionsRepository(db: Db) {
  /** Spaces of kind discussion with their member count and newest message time. */
  function discussions() {
    return db
      .selectFrom("spaces")
      .where("spaces.kind", "=", "discussion")
      .select((eb) => [
        "spaces.id",
        "spaces.public_id",
        "spaces.title",
        "spaces.created_at",
        "spaces.ends_at",
        eb
          .selectFrom("space_members")
          .select((m) => m.fn.countAll().as("n"))
          .whereRef("space_members.space_id", "=", "spaces.id")
          .where("space_members.left_at", "is", null)
          .as("member_count"),
        eb
          .selectFrom("messages")
          .select((m) => m.fn.max("messages.created_at").as("t"))
          .whereRef("messages.space_id", "=", "spaces.id")
          .as("last_message_at"),
        eb.selectFrom("rooms").select("rooms.current_generation").whereRef("rooms.space_id", "=", "spaces.id").as("room_generation"),
      ]);
  }

  const toRow = (r: {
    id: string;
    public_id: string | null;
    title: string;
    created_at: number;
    ends_at: number | null;
    member_count: number | string | bigint | null;
    last_message_at: number | string | bigint | null;
    room_generation: number | string | bigint | null;
  }): SpaceRow => ({
    id: r.id,
    public_id: r.public_id ?? "",
    title: r.title,
    created_at: Number(r.created_at),
    ends_at: Number(r.ends_at),
    member_count: Number(r.member_count ?? 0),
    last_message_at: num(r.last_message_at),
    room_generation: num(r.room_generation),
  });

  /**
   * The discussions the user is an active member of, each with their membership and how many messages by others
   * came after they last read it.
   */
  function mine(userId: string) {
    return discussions()
      .innerJoin("space_members as me", "me.space_id", "spaces.id")
      .where("me.user_id", "=", userId)
      .where("me.left_at", "is", null)
      .select((eb) => [
        "me.id as member_id",
        "me.display_name",
        "me.role",
        eb
          .selectFrom("messages")
          .select((m) => m.fn.countAll().as("n"))
          .whereRef("messages.space_id", "=", "spaces.id")
          .whereRef("messages.created_at", ">", "me.last_read_at")
          .where("messages.user_id", "!=", userId)
          .as("unread"),
      ]);
  }

  const toMyRow = (
    r: Parameters<typeof toRow>[0] & Pick<MySpaceRow, "member_id" | "display_name" | "role"> & { unread: number | string | bigint | null },
  ): MySpaceRow => ({ ...toRow(r), member_id: r.member_id, display_name: r.display_name, role: r.role, unread: Number(r.unread ?? 0) });

  return {
    in: (trx: Transaction<Database>) => createDiscussionsRepository(trx),

    /** Whether any space (a discussion, or an account's personal space) has this id. */
    async spaceIdTaken(spaceId: string): Promise<boolean> {
      return (await db.selectFrom("spaces").select("id").where("id", "=", spaceId).executeTakeFirst()) !== undefined;
    },

    async publicIdTaken(publicId: string): Promise<boolean> {
      const row = await db.selectFrom("spaces").select("id").where("public_id", "=", publicId).executeTakeFirst();
      return row !== undefined;
    },

    /** The discussion as every member sees it (undefined when there is none); access is checked by the caller. */
    async find(spaceId: string): Promise<SpaceRow | undefined> {
      const row = await discussions().where("spaces.id", "=", spaceId).executeTakeFirst();
      return row && toRow(row);
    },

    /** The id of the open discussion with this public ID. */
    async openByPublicId(publicId: string, now: number): Promise<string | undefined> {
      const row = await db
        .selectFrom("spaces")
        .select("id")
        .where("kind", "=", "discussion")
        .where("public_id", "=", publicId)
        .where("ends_at", ">", now)
        .executeTakeFirst();
      return row?.id;
    },

    /** The active members, creator first, then by when they joined. */
    async members(spaceId: string): Promise<MemberRow[]> {
      return db
        .selectFrom("space_members")
        .select(["id", "display_name", "role"])
        .where("space_id", "=", spaceId)
        .where("left_at", "is", null)
        .orderBy("role", "desc")
        .orderBy("joined_at")
        .orderBy("id")
        .execute();
    },

    /** Every member row of the space, active or not, with when they joined and left. */
    async memberHistory(spaceId: string): Promise<MemberHistoryRow[]> {
      return db
        .selectFrom("space_members")
        .select(["id", "display_name", "role", "joined_at", "left_at", "left_reason"])
        .where("space_id", "=", spaceId)
        .execute();
    },

    /** The user's row in the space, whether active, left or removed. */
    async memberRowOf(spaceId: string, userId: string): Promise<SpaceMembersTable | undefined> {
      return db.selectFrom("space_members").selectAll().where("space_id", "=", spaceId).where("user_id", "=", userId).executeTakeFirst();
    },

    /** The active member with this member id. */
    async activeMember(spaceId: string, memberId: string): Promise<SpaceMembersTable | undefined> {
      return db
        .selectFrom("space_members")
        .selectAll()
        .where("space_id", "=", spaceId)
        .where("id", "=", memberId)
        .where("left_at", "is", null)
        .executeTakeFirst();
    },

    /** The discussion as this active member sees it (see `mine`); undefined when they are not one. */
    async findMine(spaceId: string, userId: string): Promise<MySpaceRow | undefined> {
      const row = await mine(userId).where("spaces.id", "=", spaceId).executeTakeFirst();
      return row && toMyRow(row);
    },

    /** The open discussions the user is an active member of; newest activity (last message, or creation) first. */
    async listFor(userId: string, now: number): Promise<MySpaceRow[]> {
      const rows = await mine(userId).where("spaces.ends_at", ">", now).execute();
      const activity = (d: SpaceRow) => d.last_message_at ?? d.created_at;
      return rows.map(toMyRow).sort((a, b) => activity(b) - activity(a) || b.created_at - a.created_at);
    },

    /** Ids of discussions past their end, for the sweeper. */
    async endedIds(now: number, limit: number): Promise<string[]> {
      const rows = await db
        .selectFrom("spaces")
        .select("id")
        .where("kind", "=", "discussion")
        .where("ends_at", "<=", now)
        .orderBy("ends_at")
        .limit(limit)
        .execute();
      return rows.map((r) => r.id);
    },

    /** The discussions the user created (account deletion ends them for everyone). */
    async createdBy(userId: string): Promise<string[]> {
      const rows = await db.selectFrom("spaces").select("id").where("kind", "=", "discussion").where("created_by", "=", userId).execute();
      return rows.map((r) => r.id);
    },

    /** The discussions the user has a member row in (active, left or removed), created by someone else. */
    async joinedBy(userId: string): Promise<string[]> {
      const rows = await db
        .selectFrom("space_members")
        .innerJoin("spaces", "spaces.id", "space_members.space_id")
        .select("spaces.id")
        .where("space_members.user_id", "=", userId)
        .where("spaces.kind", "=", "discussion")
        .where("spaces.created_by", "<>", userId)
        .execute();
      return rows.map((r) => r.id);
    },

    /** An encrypted discussion's current generation (undefined for one in clear). */
    async roomGeneration(spaceId: string): Promise<number | undefined> {
      const row = await db.selectFrom("rooms").select("current_generation").where("space_id", "=", spaceId).executeTakeFirst();
      return row === undefined ? undefined : Number(row.current_generation);
    },

    /** The account whose member key `keyId` is in that generation of an encrypted discussion. */
    async memberKeyOwner(spaceId: string, generation: number, keyId: string): Promise<string | undefined> {
      const row = await db
        .selectFrom("room_entries")
        .select("user_id")
        .where("space_id", "=", spaceId)
        .where("generation", "=", generation)
        .where("key_id", "=", keyId)
        .executeTakeFirst();
      return row?.user_id;
    },

    /** Whether the space is a discussion (a personal space is never deleted this way). */
    async isDiscussion(spaceId: string): Promise<boolean> {
      const space = await db.selectFrom("spaces").select("kind").where("id", "=", spaceId).executeTakeFirst();
      return space?.kind === "discussion";
    },
  };
}

export type DiscussionsRepository = ReturnType<typeof createDiscussionsRepository>;
