/**
 * Kysely's PostgreSQL driver sends every query unnamed, so PostgreSQL parses and plans it on every run. Over this
 * pool, the hot queries (`compiledOnce`) go as named prepared statements instead: node-postgres parses each once
 * per connection and afterwards only binds and executes it. Every other query goes as before.
 */
import type { PostgresPool, PostgresPoolClient } from "kysely";
import type pg from "pg";
import { statementNameOf } from "./compiled-query.ts";

export function withNamedStatements(pool: pg.Pool): PostgresPool {
  // One wrapper per connection, so Kysely keeps recognising a connection it has seen.
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();

  function wrap(client: pg.PoolClient): PostgresPoolClient {
    // Kysely's two overloads (text and values, or a cursor) reach node-postgres as they came.
    const query = client.query.bind(client) as (...args: unknown[]) => never;
    return {
      query(sqlOrCursor: unknown, parameters?: ReadonlyArray<unknown>) {
        const name = typeof sqlOrCursor === "string" ? statementNameOf(sqlOrCursor) : undefined;
        return name ? query({ name, text: sqlOrCursor, values: parameters }) : query(sqlOrCursor, parameters);
      },
      release: () => client.release(),
    } as PostgresPoolClient;
  }

  return {
    async connect() {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (!wrapper) {
        wrapper = wrap(client);
        wrappers.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => pool.end(),
  };
}
