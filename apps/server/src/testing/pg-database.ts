import { createHash } from "node:crypto";
import { createPgPool } from "../db/database.ts";

/**
 * A PostgreSQL database for the server of this data folder, named after it, so a restart on the same folder finds its
 * data again. A database each (not a schema each) keeps test files apart: Kysely's migrator reads the tables of every
 * schema in its database, and another test dropping its own schema meanwhile failed that read.
 */
export async function createPgDatabaseFor(baseUrl: string, dataDir: string) {
  const name = `daysync_test_${createHash("sha256").update(dataDir).digest("hex").slice(0, 32)}`;
  const admin = async (statement: string, values: unknown[] = []) => {
    const pool = createPgPool(baseUrl, { max: 1 });
    try {
      return await pool.query(statement, values);
    } finally {
      await pool.end();
    }
  };
  const exists = await admin("select 1 from pg_database where datname = $1", [name]);
  if (exists.rowCount === 0) await admin(`create database "${name}"`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return { url: url.href, drop: () => admin(`drop database if exists "${name}" with (force)`) };
}
