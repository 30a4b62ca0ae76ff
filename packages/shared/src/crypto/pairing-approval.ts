/**
 * A QR pairing's typed code, one code and one round (docs/protocol/encryption.md, "QR pairing handover", typed code):
 * the approval's own sides (`KeyRequester`, `KeyApprover`) run over the pairing request instead of a key request.
 * The new device shows `lookup-password`: the server knows the lookup half, the password half never leaves the device
 * and is the CPace password. The new device asks before it has a session, so its side of the exchange goes by the
 * pairing request's secret; the signed-in device's side goes by its session.
 */
import type { ApproveKeyRequestInput, KeysState } from "../keys.ts";
import type { PairingRequestCreated } from "../pairing.ts";
import { makePairingPassword, normalizeCodeHalf, pairingCodeParts, type TypedPairingExchange } from "../pairing-exchange.ts";
import type { KeyRequest } from "../responses.ts";
import { randomBytes } from "./encoding.ts";
import type { HeldKeys, KeyStorage } from "./held-keys.ts";
import { type KeyApprovalServer, KeyApprover, KeyRequester } from "./key-approval.ts";

/** A pairing exchange in the shape both sides of an approval read; the pairing request stands for the session. */
export function exchangeAsKeyRequest(exchange: TypedPairingExchange): KeyRequest {
  return {
    ...exchange,
    id: exchange.request_id,
    session_id: exchange.request_id,
    device: {
      id: exchange.request_id,
      name: "",
      browser: "",
      os: "",
      kind: "computer",
      ip: "",
      signed_in_at: 0,
      last_seen_at: 0,
      key_status: "none",
    },
    approver_session_id: null,
    created_at: 0,
  };
}

/** What asking gave the new device: its request and the secret that proves it. */
export type AskedPairing = { request_id: string; secret: string };

/** The anonymous pairing routes the new device uses, by its request's secret. */
export interface PairingRequesterRoutes<Created extends AskedPairing = PairingRequestCreated> {
  /**
   * POST /api/pair/requests (the login panel) or /api/pair/join/:lookup (Add a device, the code typed) with the key,
   * its proof and the share; the request's id and secret.
   */
  create(body: { public_key: string; key_proof: string; requester_share: string }): Promise<Created>;
  confirm(id: string, body: { secret: string; requester_confirmation: string }): Promise<TypedPairingExchange>;
  reject(id: string, body: { secret: string }): Promise<TypedPairingExchange>;
  deny(id: string, body: { secret: string }): Promise<TypedPairingExchange>;
}

/**
 * The new device's side: makes its password (or, joining an offer, takes the one typed), asks with its share, shows
 * the code; follows the exchange the pairing channel sends (`update`); once signed in (`signedIn`), accepts the
 * handover of the approved exchange (`accept`).
 */
export class PairingRequester<Created extends AskedPairing = PairingRequestCreated> {
  readonly password: string;
  readonly side: KeyRequester;
  private created: Created | undefined;

  constructor(
    private readonly held: HeldKeys,
    keyProof: string,
    publicKey: string,
    routes: PairingRequesterRoutes<Created>,
    state: () => Promise<KeysState>,
    /** Add a device: the password half typed from the offering device's screen. */
    password: string = makePairingPassword(randomBytes),
  ) {
    this.password = password;
    const secret = () => this.created?.secret ?? "";
    const server: KeyApprovalServer = {
      state,
      ask: async (share) => {
        this.created = await routes.create({ public_key: publicKey, key_proof: keyProof, requester_share: share });
        return exchangeAsKeyRequest({
          request_id: this.created.request_id,
          status: "pending",
          requester_public_key: publicKey,
          requester_key_id: held.keyId,
          requester_share: share,
          approver_public_key: null,
          approver_key_id: null,
          approver_share: null,
          approver_confirmation: null,
          requester_confirmation: null,
          handover_confirmation: null,
          failures: 0,
          expires_at: 0,
        });
      },
      answer: () => Promise.reject(new Error("The new device does not answer")),
      approve: () => Promise.reject(new Error("The new device does not approve")),
      confirm: async (id, requester_confirmation) =>
        exchangeAsKeyRequest(await routes.confirm(id, { secret: secret(), requester_confirmation })),
      reject: async (id) => exchangeAsKeyRequest(await routes.reject(id, { secret: secret() })),
      deny: async (id) => exchangeAsKeyRequest(await routes.deny(id, { secret: secret() })),
    };
    // Until the exchange signs this device in, it has no account: accept() is only called after signedIn().
    this.side = new KeyRequester("", held, unsignedStorage, server, { code: this.password });
  }

  /** Asks with the share: the request as the server made it. */
  async join(): Promise<Created> {
    await this.side.ask();
    const created = this.created;
    if (!created) throw new Error("The request was not made");
    return created;
  }

  /** Asks: the request as made, its `short_code` the whole code to type (the server's lookup, then the password). */
  async ask(this: PairingRequester<PairingRequestCreated>): Promise<PairingRequestCreated> {
    const created = await this.join();
    return { ...created, short_code: `${created.short_code}${this.password}` };
  }

  /** The new device's key pair and key id (the app keeps them once it is signed in). */
  get keys(): HeldKeys {
    return this.held;
  }

  /** A copy of the exchange from the pairing channel: what to show (the code, wrong codes, or the end). */
  update(exchange: TypedPairingExchange) {
    return this.side.update(exchangeAsKeyRequest(exchange));
  }

  /** Signed in by the exchange: keeps the epochs of the approved exchange's handover, or throws ApprovalRefusedError. */
  accept(userId: string, storage: KeyStorage, exchange: TypedPairingExchange): Promise<boolean> {
    this.side.signedIn(userId, storage);
    return this.side.accept(exchangeAsKeyRequest(exchange));
  }
}

const notSignedIn = () => Promise.reject(new Error("Not signed in yet"));
const unsignedStorage: KeyStorage = {
  load: async () => undefined,
  saveDevice: notSignedIn,
  saveEpoch: notSignedIn,
  generatePair: notSignedIn,
};

/** The signed-in device's pairing routes, by its session. */
export interface PairingApproverRoutes {
  state(): Promise<KeysState>;
  exchange(id: string): Promise<TypedPairingExchange>;
  answer(id: string, body: { approver_share: string; approver_confirmation: string }): Promise<TypedPairingExchange>;
  approve(id: string, body: ApproveKeyRequestInput): Promise<TypedPairingExchange>;
  deny(id: string): Promise<TypedPairingExchange>;
}

/** The typed code's halves: the lookup to find the request by, and the password (null when it is no short code). */
export const typedPairingCode = pairingCodeParts;

/** The signed-in device's side of one typed pairing code, from the first copy of the exchange it saw. */
export function pairingApprover(userId: string, held: HeldKeys, routes: PairingApproverRoutes): KeyApprover {
  const server: KeyApprovalServer = {
    state: routes.state,
    ask: () => Promise.reject(new Error("The signed-in device does not ask")),
    answer: async (id, body) => exchangeAsKeyRequest(await routes.answer(id, body)),
    confirm: () => Promise.reject(new Error("The signed-in device does not confirm")),
    reject: () => Promise.reject(new Error("The signed-in device does not reject")),
    approve: async (id, body) => exchangeAsKeyRequest(await routes.approve(id, body)),
    deny: async (id) => exchangeAsKeyRequest(await routes.deny(id)),
  };
  return new KeyApprover(userId, held, server, normalizeCodeHalf);
}
