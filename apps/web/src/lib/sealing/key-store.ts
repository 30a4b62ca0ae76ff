/**
 * Where this browser keeps an account's keys (docs/protocol/encryption.md, "Keys"): IndexedDB database `daysync-keys`, one
 * record per user id, so the service worker can open the same database. The device's private key and the epochs'
 * subkeys are CryptoKeys stored as they are (structured clone), non-extractable: a script can use them, never read them.
 */
import {
  type AccountState,
  deriveEpochKeys,
  type EpochKeys,
  generateDeviceKeyPair,
  type HeldKeys,
  type KeyStorage,
  type SendNumbersState,
  type SendNumbersStore,
  type SigningKey,
} from "@daysync/shared/crypto";
import { type IDBPDatabase, openDB } from "idb";

const DATABASE = "daysync-keys";
const ACCOUNTS = "accounts";

interface StoredAccount {
  userId: string;
  keyId: string;
  pair: HeldKeys["pair"];
  epochs: Record<number, EpochKeys>;
  /** The account's encryption state as this browser saw it (docs/protocol/encryption.md); absent until keyed. */
  account?: AccountState;
  /** The device's Ed25519 signing key for the signed device list (the secret as bytes: Ed25519 runs in JavaScript). */
  signing?: SigningKey;
  /** How this browser numbers what it sends (docs/protocol/encryption.md, "Sealed messages"); reset with the pair. */
  numbers?: SendNumbersState;
}

function open(): Promise<IDBPDatabase> {
  return openDB(DATABASE, 1, {
    upgrade(db) {
      db.createObjectStore(ACCOUNTS, { keyPath: "userId" });
    },
  });
}

async function read(userId: string): Promise<StoredAccount | undefined> {
  const db = await open();
  try {
    return (await db.get(ACCOUNTS, userId)) as StoredAccount | undefined;
  } finally {
    db.close();
  }
}

async function write(account: StoredAccount): Promise<void> {
  const db = await open();
  try {
    await db.put(ACCOUNTS, account);
  } finally {
    db.close();
  }
}

export function browserKeyStorage(userId: string): KeyStorage {
  return {
    async load() {
      const account = await read(userId);
      if (!account) return undefined;
      return {
        keyId: account.keyId,
        pair: account.pair,
        epochs: new Map(Object.entries(account.epochs).map(([n, keys]) => [Number(n), keys])),
        ...(account.account ? { account: account.account } : {}),
        ...(account.signing ? { signing: account.signing } : {}),
      };
    },
    saveDevice: (keyId, pair) => write({ userId, keyId, pair, epochs: {} }),
    async saveEpoch(epoch, epochKey) {
      const keys = await deriveEpochKeys(epochKey, userId);
      const account = await read(userId);
      if (!account) throw new Error("This device's key is gone");
      await write({ ...account, epochs: { ...account.epochs, [epoch]: keys } });
      return keys;
    },
    generatePair: () => generateDeviceKeyPair(),
    async saveAccount(state) {
      const account = await read(userId);
      if (!account) throw new Error("This device's key is gone");
      await write({ ...account, account: state });
    },
    async saveSigningKey(signing) {
      const account = await read(userId);
      if (!account) throw new Error("This device's key is gone");
      await write({ ...account, signing });
    },
  };
}

/** Where this browser keeps its numbering, beside its keys: a reload goes on counting. */
export function browserSendNumbers(userId: string): SendNumbersStore {
  return {
    load: async () => (await read(userId))?.numbers,
    async save(numbers) {
      const account = await read(userId);
      if (!account) throw new Error("This device's key is gone");
      await write({ ...account, numbers });
    },
  };
}

/** Signing out takes this device's keys with it (docs/protocol/encryption.md, "Keys"). */
export async function forgetKeys(userId: string): Promise<void> {
  const db = await open();
  try {
    await db.delete(ACCOUNTS, userId);
  } finally {
    db.close();
  }
}
