import type { ColumnDefinitionBuilder, Kysely, Migration } from "kysely";

/** A column naming its discussion: the row goes with it. */
const space = (c: ColumnDefinitionBuilder) => c.notNull().references("spaces.id").onDelete("cascade");

/**
 * Issue 45 (docs/protocol/encryption.md, "Encrypted discussions"): an encrypted discussion has a `rooms` row (its
 * sealed title, current generation and whether typed-ID joining is on); each generation (first one wins) has its
 * members' entries and the room keys wrapped for them; a joiner by typed ID relays its exchange through a join
 * request; each account keeps its member seed and room keys sealed for its own devices. A message sealed in a room
 * names its generation and its sender's member key. Everything here is opaque to the server; all goes with the space.
 */
export const m032Rooms: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("rooms")
      .addColumn("space_id", "text", (c) => space(c).primaryKey())
      .addColumn("sealed_title", "text", (c) => c.notNull())
      .addColumn("current_generation", "integer", (c) => c.notNull())
      .addColumn("id_joining", "integer", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("room_generations")
      .addColumn("space_id", "text", space)
      .addColumn("generation", "integer", (c) => c.notNull())
      .addColumn("made_by", "text")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("room_generations_pk", ["space_id", "generation"])
      .execute();
    await db.schema
      .createTable("room_entries")
      .addColumn("space_id", "text", space)
      .addColumn("generation", "integer", (c) => c.notNull())
      .addColumn("key_id", "text", (c) => c.notNull())
      .addColumn("public_key", "text", (c) => c.notNull())
      .addColumn("name_tag", "text", (c) => c.notNull())
      .addColumn("added_by", "text")
      .addColumn("admission", "text", (c) => c.notNull())
      .addColumn("admission_id", "text", (c) => c.notNull())
      .addColumn("tag", "text", (c) => c.notNull())
      .addColumn("sealed_name", "text", (c) => c.notNull())
      .addColumn("member_id", "text", (c) => c.notNull())
      // Not a reference: the entry outlives a deleted account ("" then), as others' entries may name it as `added_by`.
      .addColumn("user_id", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("room_entries_pk", ["space_id", "generation", "key_id"])
      .execute();
    await db.schema.createIndex("room_entries_user").on("room_entries").columns(["space_id", "user_id"]).execute();
    await db.schema
      .createTable("room_wraps")
      .addColumn("space_id", "text", space)
      .addColumn("generation", "integer", (c) => c.notNull())
      .addColumn("recipient_key_id", "text", (c) => c.notNull())
      .addColumn("sender_key_id", "text", (c) => c.notNull())
      .addColumn("enc", "text", (c) => c.notNull())
      .addColumn("ciphertext", "text", (c) => c.notNull())
      .addColumn("handover_tag", "text")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("room_wraps_pk", ["space_id", "generation", "recipient_key_id", "sender_key_id"])
      .execute();
    await db.schema.createIndex("room_wraps_recipient").on("room_wraps").columns(["space_id", "recipient_key_id"]).execute();
    await db.schema
      .createTable("room_join_requests")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("space_id", "text", space)
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("joiner_key_id", "text", (c) => c.notNull())
      .addColumn("joiner_public_key", "text", (c) => c.notNull())
      .addColumn("share", "text", (c) => c.notNull())
      .addColumn("member_user_id", "text")
      .addColumn("member_key_id", "text")
      .addColumn("member_public_key", "text")
      .addColumn("answer_share", "text")
      .addColumn("answer_confirmation", "text")
      .addColumn("joiner_confirmation", "text")
      .addColumn("handover_tag", "text")
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("room_join_requests_space").on("room_join_requests").columns(["space_id", "expires_at"]).execute();
    await db.schema
      .createTable("room_own")
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("space_id", "text", space)
      .addColumn("generation", "integer", (c) => c.notNull())
      .addColumn("value", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("room_own_pk", ["user_id", "space_id", "generation"])
      .execute();
    await db.schema.alterTable("messages").addColumn("generation", "integer").execute();
    await db.schema.alterTable("messages").addColumn("sender_key_id", "text").execute();
  },
};
