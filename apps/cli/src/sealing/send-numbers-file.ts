/**
 * How this terminal numbers what it sends (docs/protocol/encryption.md, "Sealed messages"): counted in keys.json
 * beside its keys, so the next command goes on from the last number; a new key pair starts again from 1.
 */
import { SendNumbering, type SendNumbersStore } from "@daysync/shared/crypto";
import type { ConfigStore } from "../config-store.ts";

export { SendNumbering };

export function fileSendNumbers(store: ConfigStore, server: string): SendNumbersStore {
  return {
    load: async () => store.keys(server)?.numbers,
    async save(numbers) {
      const stored = store.keys(server);
      if (!stored) throw new Error("This terminal's key is gone");
      store.saveKeys(server, { ...stored, numbers });
    },
  };
}
