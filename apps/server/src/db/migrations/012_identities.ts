import type { Kysely, Migration } from "kysely";

/**
 * Sign-in through identity providers (issue 26): an identity is (issuer, subject), never an email. An account
 * made through a provider has no password: its `password_hash` holds a marker no password verifies against.
 * `auth_flows` holds each started sign-in's state, nonce and PKCE verifier until its callback consumes it.
 */
export const m012Identities: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("identities")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("provider", "text", (c) => c.notNull())
      .addColumn("issuer", "text", (c) => c.notNull())
      .addColumn("subject", "text", (c) => c.notNull())
      .addColumn("email", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addUniqueConstraint("identities_issuer_subject", ["issuer", "subject"])
      .execute();
    await db.schema.createIndex("identities_user").on("identities").column("user_id").execute();
    await db.schema
      .createTable("auth_flows")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("provider", "text", (c) => c.notNull())
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("nonce", "text", (c) => c.notNull())
      .addColumn("code_verifier", "text", (c) => c.notNull())
      .addColumn("return_to", "text", (c) => c.notNull())
      .addColumn("link_user_id", "text", (c) => c.references("users.id").onDelete("cascade"))
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("auth_flows_expiry").on("auth_flows").column("expires_at").execute();
  },
};
