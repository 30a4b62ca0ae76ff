/**
 * Kysely's SQLite driver asks better-sqlite3 to prepare every query anew, which cost about as much CPU as running
 * it. Kysely renders the same query shape to the same SQL text (values are bound, not inlined), so a prepared
 * statement can be kept per text and reused; the least recently used go once there are `max`.
 */
import type SQLite from "better-sqlite3";
import type { SqliteDatabase } from "kysely";

export function reusePreparedStatements(
  sqlite: SQLite.Database,
  { max = 500, beforeClose }: { max?: number; beforeClose?: () => void } = {},
): SqliteDatabase {
  const statements = new Map<string, SQLite.Statement>();
  return {
    close() {
      beforeClose?.();
      sqlite.close();
    },
    prepare(sql) {
      let statement = statements.get(sql);
      if (statement) statements.delete(sql);
      else {
        statement = sqlite.prepare(sql);
        if (statements.size >= max) statements.delete(statements.keys().next().value as string);
      }
      statements.set(sql, statement);
      return statement;
    },
  };
}
