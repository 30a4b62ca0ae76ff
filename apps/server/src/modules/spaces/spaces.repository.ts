/**
 * Every write of spaces and their members (decision 016): a user's personal space, made and erased with the account,
 * and the discussions' rows. Other modules read what they need through their own queries and write only here.
 */
import type { Transaction } from "kysely";
import type { Db } from "../../db/database.ts";
import type { Database, SpaceMembersTable, SpacesTable } from "../../db/schema.ts";
import type { SpaceLockRows } from "../../feed/changes.repository.ts";

/** The feed's lock of a discussion's row (a write that changes nothing), which orders its members' logs. */
export const spaceLockOfFeed: SpaceLockRows = {
  async lock(db, spaceId) {
    const space = await db
      .updateTable("spaces")
      .set((eb) => ({ updated_at: eb.ref("updated_at") }))
      .where("id", "=", spaceId)
      .returning("id")
      .executeTakeFirst();
    return space !== undefined;
  },
};

/** Over the database, or over a transaction (`.in(trx)`) for work that must commit together. */
export function createSpacesRepository(db: Db) {
  return {
    in: (trx: Transaction<Database>) => createSpacesRepository(trx),

    /** A new account's personal space: its id, and its one membership's, are the user's. */
    async insertPersonal(user: { id: string; name: string }, now: number): Promise<void> {
      await db
        .insertInto("spaces")
        .values({
          id: user.id,
          kind: "personal",
          title: "",
          public_id: null,
          created_by: user.id,
          created_at: now,
          updated_at: now,
          ends_at: null,
        })
        .execute();
      await db
        .insertInto("space_members")
        .values({
          id: user.id,
          space_id: user.id,
          user_id: user.id,
          display_name: user.name,
          role: "owner",
          joined_at: now,
          last_read_at: 0,
          left_at: null,
          left_reason: null,
        })
        .execute();
    },

    /** The user's new name on their personal space's one member; the name of a discussion member is its own. */
    async renamePersonalMember(userId: string, name: string): Promise<void> {
      await db.updateTable("space_members").set({ display_name: name }).where("id", "=", userId).where("space_id", "=", userId).execute();
    },

    async insertSpace(space: SpacesTable): Promise<void> {
      await db.insertInto("spaces").values(space).execute();
    },

    async insertMember(member: SpaceMembersTable): Promise<void> {
      await db.insertInto("space_members").values(member).execute();
    },

    /** One who left joins again: the same row (and member id), with the name they chose now. */
    async rejoin(memberRowId: string, displayName: string, now: number): Promise<void> {
      await db
        .updateTable("space_members")
        .set({ display_name: displayName, joined_at: now, last_read_at: now, left_at: null, left_reason: null })
        .where("id", "=", memberRowId)
        .execute();
    },

    async markLeft(memberRowId: string, reason: "left" | "removed", now: number): Promise<void> {
      await db.updateTable("space_members").set({ left_at: now, left_reason: reason }).where("id", "=", memberRowId).execute();
    },

    async rename(spaceId: string, title: string, now: number): Promise<void> {
      await db.updateTable("spaces").set({ title, updated_at: now }).where("id", "=", spaceId).execute();
    },

    async setEnd(spaceId: string, endsAt: number, now: number): Promise<void> {
      await db.updateTable("spaces").set({ ends_at: endsAt, updated_at: now }).where("id", "=", spaceId).execute();
    },

    async markRead(spaceId: string, userId: string, now: number): Promise<void> {
      await db
        .updateTable("space_members")
        .set({ last_read_at: now })
        .where("space_id", "=", spaceId)
        .where("user_id", "=", userId)
        .where("left_at", "is", null)
        .execute();
    },

    /** Forgets a deleted account's member row in a discussion (its messages went before, by the messages module). */
    async forgetMember(spaceId: string, userId: string): Promise<void> {
      await db.deleteFrom("space_members").where("space_id", "=", spaceId).where("user_id", "=", userId).execute();
    },

    /** Deletes the discussion's members and the discussion (its messages and uploads went before, by their modules). */
    async deleteSpace(spaceId: string): Promise<void> {
      await db.deleteFrom("space_members").where("space_id", "=", spaceId).execute();
      await db.deleteFrom("spaces").where("id", "=", spaceId).execute();
    },
  };
}

export type SpacesRepository = ReturnType<typeof createSpacesRepository>;

/** Account deletion (`flows/account-deletion.ts`): the personal space, and any membership left of the account. */
export async function erasePersonalSpaceOfAccount(db: Db, userId: string): Promise<void> {
  await db
    .deleteFrom("space_members")
    .where((eb) => eb.or([eb("user_id", "=", userId), eb("space_id", "=", userId)]))
    .execute();
  await db.deleteFrom("spaces").where("id", "=", userId).execute();
}
