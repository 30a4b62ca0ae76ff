/**
 * The rows of encrypted discussions (docs/protocol/encryption.md, "Encrypted discussions"): the room, its generations
 * with their entries and wraps, the join requests by typed ID, and each account's own sealed values. All opaque.
 */
import type { Transaction } from "kysely";
import type { Db } from "../../db/database.ts";
import type {
  Database,
  RoomEntriesTable,
  RoomGenerationsTable,
  RoomJoinRequestsTable,
  RoomOwnTable,
  RoomsTable,
  RoomWrapsTable,
} from "../../db/schema.ts";

const num = <T extends { generation: number | string | bigint }>(row: T): T => ({ ...row, generation: Number(row.generation) });

export function createRoomsRepository(db: Db) {
  return {
    in: (trx: Transaction<Database>) => createRoomsRepository(trx),

    async room(spaceId: string): Promise<RoomsTable | undefined> {
      const row = await db.selectFrom("rooms").selectAll().where("space_id", "=", spaceId).executeTakeFirst();
      return row && { ...row, current_generation: Number(row.current_generation), id_joining: Number(row.id_joining) };
    },

    async insertRoom(row: RoomsTable): Promise<void> {
      await db.insertInto("rooms").values(row).execute();
    },

    async updateRoom(spaceId: string, patch: Partial<Omit<RoomsTable, "space_id">>): Promise<void> {
      await db.updateTable("rooms").set(patch).where("space_id", "=", spaceId).execute();
    },

    async insertGeneration(row: RoomGenerationsTable): Promise<void> {
      await db.insertInto("room_generations").values(row).execute();
    },

    async generations(spaceId: string): Promise<RoomGenerationsTable[]> {
      const rows = await db.selectFrom("room_generations").selectAll().where("space_id", "=", spaceId).orderBy("generation").execute();
      return rows.map((r) => ({ ...num(r), created_at: Number(r.created_at) }));
    },

    async insertEntries(rows: RoomEntriesTable[]): Promise<void> {
      if (rows.length > 0) await db.insertInto("room_entries").values(rows).execute();
    },

    /** Every generation's entries, oldest generation first, then in the order they came. */
    async entries(spaceId: string): Promise<RoomEntriesTable[]> {
      const rows = await db
        .selectFrom("room_entries")
        .selectAll()
        .where("space_id", "=", spaceId)
        .orderBy("generation")
        .orderBy("created_at")
        .orderBy("key_id")
        .execute();
      return rows.map(num);
    },

    async entriesOf(spaceId: string, generation: number): Promise<RoomEntriesTable[]> {
      return (
        await db.selectFrom("room_entries").selectAll().where("space_id", "=", spaceId).where("generation", "=", generation).execute()
      ).map(num);
    },

    /** The member key ids an account has had in the discussion, in any generation. */
    async keyIdsOf(spaceId: string, userId: string): Promise<string[]> {
      const rows = await db
        .selectFrom("room_entries")
        .select("key_id")
        .distinct()
        .where("space_id", "=", spaceId)
        .where("user_id", "=", userId)
        .execute();
      return rows.map((r) => r.key_id);
    },

    /**
     * A deleted account's entries stay (other entries may name its key as `added_by`, and the lists must still verify)
     * but no longer say whose they were.
     */
    async forgetAccount(spaceId: string, userId: string): Promise<void> {
      await db.updateTable("room_entries").set({ user_id: "" }).where("space_id", "=", spaceId).where("user_id", "=", userId).execute();
    },

    async setSealedName(spaceId: string, generation: number, keyId: string, sealedName: string): Promise<void> {
      await db
        .updateTable("room_entries")
        .set({ sealed_name: sealedName })
        .where("space_id", "=", spaceId)
        .where("generation", "=", generation)
        .where("key_id", "=", keyId)
        .execute();
    },

    /** Stores wraps; one already there for the same generation, recipient and sender stays as it was. */
    async insertWraps(rows: RoomWrapsTable[]): Promise<void> {
      if (rows.length === 0) return;
      await db
        .insertInto("room_wraps")
        .values(rows)
        .onConflict((oc) => oc.columns(["space_id", "generation", "recipient_key_id", "sender_key_id"]).doNothing())
        .execute();
    },

    async wrapsFor(spaceId: string, keyIds: string[]): Promise<RoomWrapsTable[]> {
      if (keyIds.length === 0) return [];
      const rows = await db
        .selectFrom("room_wraps")
        .selectAll()
        .where("space_id", "=", spaceId)
        .where("recipient_key_id", "in", keyIds)
        .orderBy("generation")
        .execute();
      return rows.map(num);
    },

    async putOwn(rows: RoomOwnTable[]): Promise<void> {
      for (const row of rows) {
        await db
          .insertInto("room_own")
          .values(row)
          .onConflict((oc) => oc.columns(["user_id", "space_id", "generation"]).doUpdateSet({ value: row.value }))
          .execute();
      }
    },

    async own(userId: string, spaceId: string): Promise<Array<Pick<RoomOwnTable, "generation" | "value">>> {
      const rows = await db
        .selectFrom("room_own")
        .select(["generation", "value"])
        .where("user_id", "=", userId)
        .where("space_id", "=", spaceId)
        .orderBy("generation")
        .execute();
      return rows.map(num);
    },

    async insertRequest(row: RoomJoinRequestsTable): Promise<void> {
      await db.insertInto("room_join_requests").values(row).execute();
    },

    async request(id: string): Promise<RoomJoinRequestsTable | undefined> {
      const row = await db.selectFrom("room_join_requests").selectAll().where("id", "=", id).executeTakeFirst();
      return row && { ...row, created_at: Number(row.created_at), expires_at: Number(row.expires_at) };
    },

    /** The requests not admitted yet (a refused one too) and not expired, oldest first. */
    async openRequests(spaceId: string, now: number): Promise<RoomJoinRequestsTable[]> {
      const rows = await db
        .selectFrom("room_join_requests")
        .selectAll()
        .where("space_id", "=", spaceId)
        .where("state", "!=", "admitted")
        .where("expires_at", ">", now)
        .orderBy("created_at")
        .execute();
      return rows.map((r) => ({ ...r, created_at: Number(r.created_at), expires_at: Number(r.expires_at) }));
    },

    async updateRequest(id: string, patch: Partial<Omit<RoomJoinRequestsTable, "id" | "space_id" | "user_id">>): Promise<void> {
      await db.updateTable("room_join_requests").set(patch).where("id", "=", id).execute();
    },
  };
}

export type RoomsRepository = ReturnType<typeof createRoomsRepository>;
