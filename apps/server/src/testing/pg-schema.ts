import { createHash } from "node:crypto";
import { createPgPool } from "../db/database.ts";

/**
 * A PostgreSQL schema for the server of this data folder, named after it, so a restart on the same folder finds
 * its data again; the server's connections use it through their search_path.
 */
export async function createSchemaFor(baseUrl: string, dataDir: string) {
  const schema = `daysync_test_${createHash("sha256").update(dataDir).digest("hex").slice(0, 32)}`;
  const admin = async (statement: string) => {
    const pool = createPgPool(baseUrl, { max: 1 });
    try {
      await pool.query(statement);
    } finally {
      await pool.end();
    }
  };
  await admin(`create schema if not exists "${schema}"`);
  const url = new URL(baseUrl);
  url.searchParams.set("options", `-c search_path=${schema}`);
  return { url: url.href, schema, drop: () => admin(`drop schema if exists "${schema}" cascade`) };
}
