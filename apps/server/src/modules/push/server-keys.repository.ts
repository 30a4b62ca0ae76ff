/** Named secrets every process of an installation shares (`server_keys`), stored as JSON text. */
import type { Db } from "../../db/database.ts";

export function createServerKeysRepository(db: Db) {
  return {
    async find(name: string): Promise<string | undefined> {
      const row = await db.selectFrom("server_keys").select("value").where("name", "=", name).executeTakeFirst();
      return row?.value;
    },

    /** Stores the value unless the name is taken; the first stored value is everybody's. */
    async insertIfAbsent(name: string, value: string, now: number): Promise<void> {
      await db
        .insertInto("server_keys")
        .values({ name, value, created_at: now })
        .onConflict((oc) => oc.column("name").doNothing())
        .execute();
    },
  };
}

export type ServerKeysRepository = ReturnType<typeof createServerKeysRepository>;
