/**
 * This tab's hold on the account's keys (decision 020): runs AccountKeys against the API with the browser's key
 * store, once at sign-in and again whenever the account's epochs change, and tells the pages where it stands.
 */
import {
  deviceKeySchema,
  KEYS_API,
  type KeyRequest,
  keysStateSchema,
  type RecoveryState,
  recoveryStateSchema,
  responseSchemas,
  SEALED_TEXT,
  type SendMessageInput,
  type SendSealedMessageInput,
} from "@daysync/shared";
import {
  AccountKeys,
  EpochRollbackError,
  type HeldEpochs,
  type HeldKeys,
  type KeyApprovalServer,
  KeyApprover,
  KeyRequester,
  type KeyStatus,
  type KeyStorage,
  type ListMember,
  makeRecoveryKit,
  type RecoveryServer,
  recoveryMember,
  type Sealer,
  SendNumbering,
  sealerOf,
  sealTextMessage,
  unlockWithRecoveryCode,
} from "@daysync/shared/crypto";
import { ApiError, api, apiFetch } from "../api-client.ts";
import { hasWebCrypto } from "../web-crypto.ts";
import { webDeviceListServer } from "./device-list-server.ts";
import { browserKeyStorage, browserSendNumbers } from "./key-store.ts";

/**
 * `failed`: the server could not be asked (offline); what this device holds from before still opens messages. Or,
 * `insecure`, the page is on a plain-http address other than this computer, where browsers give no WebCrypto.
 */
export type DeviceKeyStatus = { state: "starting" } | { state: "failed"; keys?: HeldKeys; insecure?: true } | KeyStatus;

/** The epochs this device holds now, by number; undefined while it does not know yet. */
export function heldEpochsOf(status: DeviceKeyStatus): HeldEpochs | undefined {
  if (status.state === "starting") return undefined;
  return "keys" in status ? (status.keys?.epochs ?? new Map()) : new Map();
}

/** When this device first saw the account keyed (a message in clear after it was written by the server), if it did. */
export function keyedAtOf(status: DeviceKeyStatus): number | undefined {
  return "keys" in status ? status.keys?.account?.keyedAt : undefined;
}

export class DeviceKeys {
  private status: DeviceKeyStatus = { state: "starting" };
  private readonly listeners = new Set<() => void>();
  private readonly keys: AccountKeys;
  private readonly storage: KeyStorage;
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;

  /** The typed-code approval's routes (docs/protocol/encryption.md, "Approving a device") and the account's requests. */
  readonly approval: KeyApprovalServer & { requests(): Promise<KeyRequest[]> } = {
    state: () => api.get(KEYS_API.keys, keysStateSchema),
    requests: async () => (await api.get(KEYS_API.requests, responseSchemas.keyRequests)).requests,
    ask: async (share) => (await api.post(KEYS_API.requests, { requester_share: share }, responseSchemas.keyRequest)).request,
    answer: async (id, body) => (await api.post(KEYS_API.answer(id), body, responseSchemas.keyRequest)).request,
    confirm: async (id, confirmation) =>
      (await api.post(KEYS_API.confirm(id), { requester_confirmation: confirmation }, responseSchemas.keyRequest)).request,
    reject: async (id) => (await api.post(KEYS_API.reject(id), undefined, responseSchemas.keyRequest)).request,
    approve: async (id, body) => (await api.post(KEYS_API.approve(id), body, responseSchemas.keyRequest)).request,
    deny: async (id) => (await api.post(KEYS_API.deny(id), undefined, responseSchemas.keyRequest)).request,
  };

  /** The recovery code's routes (docs/protocol/encryption.md, "Recovery code"). */
  readonly recovery: RecoveryServer = {
    state: () => api.get(KEYS_API.keys, keysStateSchema),
    recovery: () => api.get(KEYS_API.recovery, recoveryStateSchema),
    save: (body) => api.put(KEYS_API.recovery, body, recoveryStateSchema),
    unlock: (body) => api.post(KEYS_API.recoveryUnlock, body, keysStateSchema),
  };

  constructor(private readonly userId: string) {
    this.storage = browserKeyStorage(userId);
    this.keys = new AccountKeys(
      userId,
      this.storage,
      {
        state: () => api.get(KEYS_API.keys, keysStateSchema),
        setDeviceKey: async (publicKey) => {
          await api.put(KEYS_API.device, { public_key: publicKey }, deviceKeySchema);
        },
        createEpoch: async (body) => {
          try {
            return { ok: true, state: await api.post(KEYS_API.epochs, body, keysStateSchema) };
          } catch (error) {
            if (error instanceof ApiError && error.status === 409) return { ok: false, code: error.code };
            throw error;
          }
        },
      },
      webDeviceListServer,
    );
  }

  readonly getStatus = (): DeviceKeyStatus => this.status;

  /** The signed device list as the last sync verified it (Devices' security codes), or why it was refused. */
  readonly deviceList = () => this.keys.deviceList;

  private known: () => void = () => {};
  private readonly firstStatus = new Promise<void>((resolve) => {
    this.known = resolve;
  });

  /** The status once this device knows where it stands: what a page just opened (a notification's Copy) waits for. */
  async knownStatus(): Promise<DeviceKeyStatus> {
    await this.firstStatus;
    return this.status;
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** One sync at a time, in order: a change heard during a sync is looked at after it. */
  refresh(): Promise<void> {
    this.queue = this.queue.then(async () => {
      if (this.stopped) return;
      if (!hasWebCrypto()) {
        this.set({ state: "failed", insecure: true });
        return;
      }
      try {
        this.set(await this.keys.sync());
      } catch {
        // Offline or refused: what this device already holds still counts; the next change or start tries again.
        if (this.status.state === "starting") this.set({ state: "failed", keys: await this.storage.load().catch(() => undefined) });
      }
    });
    return this.queue;
  }

  /**
   * The account's current epoch as this device seals under it (docs/protocol/encryption.md, "Sealed messages"), or why it waits: locked
   * until approved; while the keys are being found (or could not be asked for) it waits quietly, and the outbox and
   * the upload queue try again when the status changes.
   */
  async sealer(): Promise<{ sealer: Sealer } | { waiting: string | undefined }> {
    await this.queue;
    const status = this.status;
    if (status.state === "ready") {
      try {
        const sealer = sealerOf(this.userId, status);
        if (sealer) return { sealer: this.numbered(sealer, status.keys.keyId) };
      } catch (error) {
        // An epoch below one this device holds or saw: it says so and seals nothing (docs/protocol/encryption.md).
        if (error instanceof EpochRollbackError) return { waiting: error.message };
        throw error;
      }
    }
    if (status.state === "failed" && status.insecure) return { waiting: SEALED_TEXT.insecure };
    if (status.state === "lost") return { waiting: SEALED_TEXT.lost };
    return { waiting: status.state === "locked" ? SEALED_TEXT.approveToSend : undefined };
  }

  private numbering: SendNumbering | undefined;

  /** The sealer numbering what it seals, counted in IndexedDB per key (docs/protocol/encryption.md, "Sealed messages"). */
  private numbered(sealer: Sealer, keyId: string): Sealer {
    if (this.numbering?.keyId !== keyId) this.numbering = new SendNumbering(keyId, browserSendNumbers(this.userId));
    return { ...sealer, numbering: this.numbering };
  }

  /** The server stored message `id` (a text sent, a file's last byte): later ones no longer list it as under way. */
  async stored(id: string): Promise<void> {
    await this.numbering?.stored(id).catch(() => undefined);
  }

  /** Seals a message to the user's days, or says why it waits (`sealer`). */
  async seal(message: SendMessageInput): Promise<{ body: SendSealedMessageInput } | { waiting: string | undefined }> {
    const sealing = await this.sealer();
    return "sealer" in sealing ? { body: await sealTextMessage(sealing.sealer, message) } : sealing;
  }

  /** The asking side of a new request, while this device is locked. */
  requester(): KeyRequester | undefined {
    return this.status.state === "locked" ? new KeyRequester(this.userId, this.status.keys, this.storage, this.approval) : undefined;
  }

  /** The answering side of a request, while this device holds the current key. */
  approver(): KeyApprover | undefined {
    return this.status.state === "ready" ? new KeyApprover(this.userId, this.status.keys, this.approval) : undefined;
  }

  /** Start over: a new epoch for this device alone (refused while another device still holds the current one). */
  async startOver(): Promise<{ ok: true } | { ok: false; code: string }> {
    const answer = await this.keys.startOver();
    await this.refresh();
    return answer.ok ? { ok: true } : answer;
  }

  /**
   * Saves `code` as the account's recovery code (replacing one before), from this device, which holds the current key.
   * Replacing a code moves the account to a new epoch at once, so the old code opens nothing sent after.
   */
  async saveRecoveryCode(code: string): Promise<RecoveryState> {
    const replacing = (await this.recovery.state()).recovery !== undefined;
    const saved = await this.againIfEpochMoved(async () => {
      if (this.status.state !== "ready") throw new Error("This device cannot read your messages yet, so it cannot make a recovery code.");
      return this.recovery.save(await makeRecoveryKit(this.userId, this.status.keys, await this.recovery.state(), code));
    });
    await this.listRecovery(await recoveryMember(this.userId, code));
    if (replacing) await this.rotateNow();
    return saved;
  }

  /** Removes the recovery code, and moves the account to a new epoch at once, which the old code cannot open. */
  async removeRecoveryCode(): Promise<void> {
    await apiFetch(KEYS_API.recovery, { method: "DELETE" });
    await this.listRecovery(undefined);
    await this.rotateNow();
  }

  /** The signed device list follows the recovery code (`AccountKeys.recoveryChanged`); a failure waits for the next change. */
  private listRecovery(member: ListMember | undefined): Promise<void> {
    this.queue = this.queue.then(() => this.keys.recoveryChanged(member).catch(() => {}));
    return this.queue;
  }

  /** Remembers keys about to be signed out, before the request goes (`AccountKeys.noteRemoved`). */
  noteRemoved(keyIds: string[]): Promise<void> {
    this.queue = this.queue.then(() => this.keys.noteRemoved(keyIds).catch(() => {}));
    return this.queue;
  }

  /**
   * The next epoch made here at once (docs/protocol/encryption.md, "Rotation and revocation"): after this device
   * signed out others (`removedKeyIds`; `keepOnly: "self"` for all of them) or changed the recovery code.
   */
  rotateNow(options: { removedKeyIds?: string[]; keepOnly?: "self" } = {}): Promise<void> {
    this.queue = this.queue.then(async () => {
      if (this.stopped || !hasWebCrypto()) return;
      try {
        this.set(await this.keys.rotateNow(options));
      } catch {
        // Offline or refused: the server still has the rotation due, and the next sync makes it.
      }
    });
    return this.queue;
  }

  /** Unlocks this locked device with a typed code; RecoveryCodeError and RecoveryRefusedError say what was wrong. */
  async unlockWithRecoveryCode(typed: string): Promise<void> {
    await this.againIfEpochMoved(async () => {
      if (this.status.state !== "locked") return;
      const signer = await unlockWithRecoveryCode(this.userId, this.status.keys, this.storage, this.recovery, typed);
      await this.keys.joinListWithRecovery(signer).catch(() => {});
    });
    await this.refresh();
  }

  /** The account's epoch moved on while this device worked (a rotation): catch up, then try once more. */
  private async againIfEpochMoved<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof ApiError && error.code === "key_epoch_taken")) throw error;
      await this.refresh();
      return work();
    }
  }

  stop(): void {
    this.stopped = true;
  }

  private set(status: DeviceKeyStatus) {
    this.status = status;
    this.known();
    for (const listener of this.listeners) listener();
  }
}
