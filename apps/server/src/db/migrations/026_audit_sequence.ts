import { type Kysely, type Migration, sql } from "kysely";

/**
 * Issue 42: the admin audit's numbers come from the database. Each entry takes the next value of a one-row counter
 * by one upsert (`admin_audit_counter`), which both engines serialise, instead of reading max(seq) + 1, which gave
 * PostgreSQL's parallel admin actions the same number; and `seq` is unique. Numbers an older server gave twice are
 * first renumbered in their order, so the unique index can be made.
 */
export const m026AuditSequence: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its time, not today's types.
  async up(db: Kysely<any>) {
    await db.schema
      .createTable("admin_audit_counter")
      .addColumn("id", "integer", (c) => c.primaryKey())
      .addColumn("value", "bigint", (c) => c.notNull())
      .execute();
    const counts = await sql<{ n: number | string; distinct_seqs: number | string }>`
      select count(*) as n, count(distinct seq) as distinct_seqs from admin_audit`.execute(db);
    const { n, distinct_seqs } = counts.rows[0] ?? { n: 0, distinct_seqs: 0 };
    if (Number(n) !== Number(distinct_seqs)) {
      const rows = await db.selectFrom("admin_audit").select("id").orderBy("seq").orderBy("at").orderBy("id").execute();
      let next = 0;
      for (const row of rows) await db.updateTable("admin_audit").set({ seq: ++next }).where("id", "=", row.id).execute();
    }
    await db.schema.dropIndex("admin_audit_seq").execute();
    await db.schema.createIndex("admin_audit_seq").on("admin_audit").column("seq").unique().execute();
    const max = await sql<{ max: number | string | null }>`select max(seq) as max from admin_audit`.execute(db);
    const last = max.rows[0]?.max;
    if (last !== null && last !== undefined)
      await db
        .insertInto("admin_audit_counter")
        .values({ id: 1, value: Number(last) })
        .execute();
  },
};
