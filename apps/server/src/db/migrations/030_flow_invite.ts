import type { Kysely, Migration } from "kysely";

/**
 * Issue 43: a sign-up through a provider started from an invite link carries that invite through the provider and
 * back, in the flow's one-time record, so the account it makes uses it up (`REGISTRATION=invite`).
 */
export const m030FlowInvite: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("auth_flows").addColumn("invite", "text").execute();
  },
};
