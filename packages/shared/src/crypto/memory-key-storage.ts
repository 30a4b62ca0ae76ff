import { generateDeviceKeyPair } from "./device-key.ts";
import { deriveEpochKeys } from "./epoch-keys.ts";
import type { HeldKeys, KeyStorage } from "./held-keys.ts";

/** Keys kept in memory only, for a device that lives as long as its process (tests play devices with it). */
export function memoryKeyStorage(userId: string): KeyStorage & { readonly held: HeldKeys | undefined } {
  let held: HeldKeys | undefined;
  return {
    get held() {
      return held;
    },
    load: async () => held,
    async saveDevice(keyId, pair) {
      held = { keyId, pair, epochs: new Map() };
    },
    async saveEpoch(epoch, epochKey) {
      const keys = await deriveEpochKeys(epochKey, userId);
      held?.epochs.set(epoch, keys);
      return keys;
    },
    generatePair: () => generateDeviceKeyPair(),
    async saveAccount(state) {
      if (held) held.account = state;
    },
    async saveSigningKey(signing) {
      if (held) held.signing = signing;
    },
  };
}
