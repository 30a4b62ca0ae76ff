/**
 * This terminal's hold on the account's keys (decision 020): AccountKeys with keys.json as its store. The key pair
 * is made extractable once so it can be written there (mode 600), and read back non-extractable.
 */
import {
  type CreateEpochInput,
  DEVICE_LIST_API,
  deviceKeySchema,
  deviceListSchema,
  KEYS_API,
  type KeyRequest,
  keysStateSchema,
  recoveryStateSchema,
  responseSchemas,
} from "@daysync/shared";
import {
  AccountKeys,
  type AskingKey,
  type DeviceListServer,
  deriveEpochKeys,
  exportDeviceKeyPair,
  fromBase64Url,
  generateDeviceKeyPair,
  type HandoverOutcome,
  importDeviceKeyPair,
  type KeyApprovalServer,
  type KeyStorage,
  type RecoveryServer,
  receiveHandover,
  signingKeyOf,
  toBase64Url,
} from "@daysync/shared/crypto";
import { type ApiClient, ApiError } from "../api-client.ts";
import type { ConfigStore } from "../config-store.ts";

function fileKeyStorage(store: ConfigStore, server: string, userId: string): KeyStorage {
  return {
    async load() {
      const stored = store.keys(server);
      if (!stored || stored.user_id !== userId) return undefined;
      const pair = await importDeviceKeyPair({ privateKey: stored.private_key, publicKey: stored.public_key });
      const epochs = await Promise.all(
        Object.entries(stored.epochs).map(async ([n, key]) => [Number(n), await deriveEpochKeys(fromBase64Url(key), userId)] as const),
      );
      const { account } = stored;
      const listHead = account?.list_head ? { listHead: account.list_head } : {};
      return {
        keyId: stored.key_id,
        pair,
        epochs: new Map(epochs),
        ...(account
          ? {
              account: {
                keyedAt: account.keyed_at,
                highestEpoch: account.highest_epoch,
                removedKeyIds: account.removed_key_ids,
                ...listHead,
              },
            }
          : {}),
        ...(stored.signing_key ? { signing: signingKeyOf(fromBase64Url(stored.signing_key)) } : {}),
      };
    },
    async saveAccount(state) {
      const stored = store.keys(server);
      if (!stored) throw new Error("This terminal's key is gone");
      const account = {
        keyed_at: state.keyedAt,
        highest_epoch: state.highestEpoch,
        removed_key_ids: state.removedKeyIds,
        ...(state.listHead ? { list_head: state.listHead } : {}),
      };
      store.saveKeys(server, { ...stored, account });
    },
    async saveSigningKey(signing) {
      const stored = store.keys(server);
      if (!stored) throw new Error("This terminal's key is gone");
      store.saveKeys(server, { ...stored, signing_key: toBase64Url(signing.secretKey) });
    },
    async saveDevice(keyId, pair) {
      const { privateKey, publicKey } = await exportDeviceKeyPair(pair);
      store.saveKeys(server, { user_id: userId, key_id: keyId, private_key: privateKey, public_key: publicKey, epochs: {} });
    },
    async saveEpoch(epoch, epochKey) {
      const stored = store.keys(server);
      if (!stored) throw new Error("This terminal's key is gone");
      store.saveKeys(server, { ...stored, epochs: { ...stored.epochs, [epoch]: toBase64Url(epochKey) } });
      return deriveEpochKeys(epochKey, userId);
    },
    generatePair: () => generateDeviceKeyPair({ extractable: true }),
  };
}

export function fileKeys(api: ApiClient, store: ConfigStore, server: string, userId: string) {
  const storage = fileKeyStorage(store, server, userId);
  const keysServer = {
    state: async () => (await api.json("GET", KEYS_API.keys, keysStateSchema)).body,
    setDeviceKey: async (publicKey: string) => {
      await api.json("PUT", KEYS_API.device, deviceKeySchema, { public_key: publicKey });
    },
    createEpoch: async (body: CreateEpochInput) => {
      try {
        return { ok: true as const, state: (await api.json("POST", KEYS_API.epochs, keysStateSchema, body)).body };
      } catch (error) {
        if (error instanceof ApiError && error.status === 409) return { ok: false as const, code: error.code };
        throw error;
      }
    },
  };
  const step = async (path: string, body?: unknown): Promise<KeyRequest> =>
    (await api.json("POST", path, responseSchemas.keyRequest, body)).body.request;
  const approval: KeyApprovalServer & { requests(): Promise<KeyRequest[]> } = {
    state: keysServer.state,
    requests: async () => (await api.get(KEYS_API.requests, responseSchemas.keyRequests)).requests,
    ask: (share) => step(KEYS_API.requests, { requester_share: share }),
    answer: (id, body) => step(KEYS_API.answer(id), body),
    confirm: (id, confirmation) => step(KEYS_API.confirm(id), { requester_confirmation: confirmation }),
    reject: (id) => step(KEYS_API.reject(id)),
    approve: (id, body) => step(KEYS_API.approve(id), body),
    deny: (id) => step(KEYS_API.deny(id)),
  };
  const recovery: RecoveryServer = {
    state: keysServer.state,
    recovery: async () => (await api.json("GET", KEYS_API.recovery, recoveryStateSchema)).body,
    save: async (body) => (await api.json("PUT", KEYS_API.recovery, recoveryStateSchema, body)).body,
    unlock: async (body) => (await api.json("POST", KEYS_API.recoveryUnlock, keysStateSchema, body)).body,
  };
  const list: DeviceListServer = {
    read: async () => (await api.json("GET", DEVICE_LIST_API.list, deviceListSchema)).body,
    append: async (entry) => {
      try {
        return { ok: true, list: (await api.json("POST", DEVICE_LIST_API.append, deviceListSchema, { entry })).body };
      } catch (error) {
        if (error instanceof ApiError && error.status === 409) return { ok: false, code: error.code };
        throw error;
      }
    },
    setSigningKey: async (signingKey) => {
      await api.send("PUT", DEVICE_LIST_API.signingKey, { signing_key: signingKey });
    },
  };
  return { keys: new AccountKeys(userId, storage, keysServer, list), storage, approval, recovery };
}

/** The pair a terminal asks to be paired with: extractable, since keys.json keeps it once the terminal is signed in. */
export const terminalKeyPair = () => generateDeviceKeyPair({ extractable: true });

/** After a QR login: keeps the terminal's pair in keys.json and the epochs the approving device handed over. */
export function receivePairingKeys(
  api: ApiClient,
  store: ConfigStore,
  server: string,
  userId: string,
  pairing: { asking: AskingKey; secret: string; requestId: string },
): Promise<HandoverOutcome> {
  return receiveHandover({
    userId,
    storage: fileKeyStorage(store, server, userId),
    server: {
      state: async () => (await api.json("GET", KEYS_API.keys, keysStateSchema)).body,
      replaceOwnWraps: async (body) => (await api.json("PUT", KEYS_API.ownWraps, keysStateSchema, body)).body,
    },
    ...pairing,
  });
}
