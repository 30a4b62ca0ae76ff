/** Every row of every table of a test server's database, as text: what "nothing of the account remains" is checked on. */
import { sql } from "kysely";
import type { TestServer } from "./test-server.ts";

export async function everyRow(server: Pick<TestServer, "db" | "databaseUrl">): Promise<Map<string, string>> {
  const pg = server.databaseUrl.startsWith("postgres");
  const tables = pg
    ? (
        await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(
          server.db,
        )
      ).rows
    : (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(server.db)).rows;
  const all = new Map<string, string>();
  for (const { name } of tables) {
    const rows = (await sql`select * from ${sql.table(name)}`.execute(server.db)).rows;
    all.set(name, JSON.stringify(rows));
  }
  return all;
}

/** The tables in which any row names one of `needles` (case-insensitive): empty once an account is wholly gone. */
export async function tablesNaming(server: Pick<TestServer, "db" | "databaseUrl">, needles: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const [table, rows] of await everyRow(server)) {
    const text = rows.toLowerCase();
    if (needles.some((n) => text.includes(n.toLowerCase()))) found.push(table);
  }
  return found;
}
