/** Named secrets and claims every process of an installation shares (`server_keys`), stored as JSON text. */
import type { Transaction } from "kysely";
import type { Db } from "../../db/database.ts";
import type { Database } from "../../db/schema.ts";

/** Over the database, or over a transaction (`.in(trx)`) for a claim that commits with what it decides. */
export function createServerKeysRepository(db: Db) {
  return {
    in: (trx: Transaction<Database>) => createServerKeysRepository(trx),

    async find(name: string): Promise<string | undefined> {
      const row = await db.selectFrom("server_keys").select("value").where("name", "=", name).executeTakeFirst();
      return row?.value;
    },

    /**
     * Stores the value unless the name is taken; the first stored value is everybody's. Whether this one was stored:
     * the unique name decides a race.
     */
    async insertIfAbsent(name: string, value: string, now: number): Promise<boolean> {
      const stored = await db
        .insertInto("server_keys")
        .values({ name, value, created_at: now })
        .onConflict((oc) => oc.column("name").doNothing())
        .returning("name")
        .executeTakeFirst();
      return stored !== undefined;
    },
  };
}

export type ServerKeysRepository = ReturnType<typeof createServerKeysRepository>;
