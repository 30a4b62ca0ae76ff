/**
 * Approval by check code (decision 020, section 4.2), both sides, the same in the browser and the CLI. The asking
 * device (`KeyRequester`) commits to a nonce, reveals it once a device answered, and shows the code; only after the
 * person said Yes does it accept the answering device's wraps, sealed in `auth` mode by that device's key, and only
 * if the roster lists that key and its own new row. The answering device (`KeyApprover`) answers with its nonce,
 * checks the reveal against the commitment, shows the code, and on Approve re-wraps every epoch it holds: it opens
 * its own wraps from the server again, since a device keeps only the subkeys.
 */

import type { ApproveKeyRequestInput, KeysState } from "../keys.ts";
import type { KeyRequest } from "../responses.ts";
import { type HeldKeys, type KeyStorage, rosterRowOf, trustedSender } from "./account-keys.ts";
import { checkCode, checkCommitment, makeCheckNonce, verifyCheckCommitment } from "./check-code.ts";
import { exportPublicKey, importPublicKey, keyId } from "./device-key.ts";
import type { Bytes } from "./encoding.ts";
import { deriveEpochKeys } from "./epoch-keys.ts";
import { UndecryptableError } from "./errors.ts";
import { type RosterRow, rosterTag, verifyRosterRow } from "./roster.ts";
import { openEpochKey, wrapEpochKey } from "./wraps.ts";

/** The routes of /api/keys/requests and the device's key state, as each platform reaches them. */
export interface KeyApprovalServer {
  state(): Promise<KeysState>;
  ask(commitment: string): Promise<KeyRequest>;
  answer(id: string, approverNonce: string): Promise<KeyRequest>;
  reveal(id: string, requesterNonce: string): Promise<KeyRequest>;
  approve(id: string, body: ApproveKeyRequestInput): Promise<KeyRequest>;
  deny(id: string): Promise<KeyRequest>;
}

/** Where a request stands for one side: what that device shows. */
export type ApprovalStep =
  /** Asked, or answered but not yet revealed: no code yet. */
  | { step: "waiting" }
  /** Both nonces are known: the six digits to compare ("123 456"). */
  | { step: "compare"; code: string }
  /** The other side's part did not check out: the request was ended. */
  | { step: "failed" }
  | { step: "ended"; status: "denied" | "expired" };

/** The asking side's failure to accept a handover: it stays locked and says so. */
export class ApprovalRefusedError extends Error {}

/** What both sides keep of the one request they follow, and how they take the server's news of requests. */
abstract class RequestSide {
  protected request: KeyRequest | undefined;

  /**
   * Keeps the news if it is of this side's request. What to show without going further: still waiting when it is of
   * another request, ended when this one was denied or expired; undefined when the side goes on to its own step.
   */
  protected take(request: KeyRequest): ApprovalStep | undefined {
    if (request.id !== this.request?.id) return { step: "waiting" };
    this.request = request;
    return request.status === "denied" || request.status === "expired" ? { step: "ended", status: request.status } : undefined;
  }
}

/** The locked device's side of one request. */
export class KeyRequester extends RequestSide {
  private readonly nonce = makeCheckNonce();

  constructor(
    private readonly userId: string,
    private readonly held: HeldKeys,
    private readonly storage: KeyStorage,
    private readonly server: KeyApprovalServer,
  ) {
    super();
  }

  get id(): string | undefined {
    return this.request?.id;
  }

  /** Posts the commitment: every keyed device of the account now shows the request. */
  async ask(): Promise<KeyRequest> {
    this.request = await this.server.ask(await checkCommitment(await exportPublicKey(this.held.pair.publicKey), this.nonce));
    return this.request;
  }

  /** Follows the request as the server tells it: reveals once answered; the code once both nonces are known. */
  async update(request: KeyRequest): Promise<ApprovalStep> {
    const shown = this.take(request);
    if (shown) return shown;
    if (request.status === "answered") this.request = await this.server.reveal(request.id, this.nonce);
    return this.code();
  }

  private async code(): Promise<ApprovalStep> {
    const request = this.request;
    if (!request?.approver_public_key || !request.approver_nonce || request.requester_nonce === null) return { step: "waiting" };
    const code = await checkCode({
      requestId: request.id,
      requesterPublicKey: await exportPublicKey(this.held.pair.publicKey),
      approverPublicKey: request.approver_public_key,
      requesterNonce: this.nonce,
      approverNonce: request.approver_nonce,
    });
    return { step: "compare", code };
  }

  /** No: ends the request on both screens (after an approval too, which takes the handover back). */
  async refuse(): Promise<void> {
    if (this.request) this.request = await this.server.deny(this.request.id);
  }

  /**
   * Yes: accepts the approval once it came. Opens only wraps sealed by the answering device's key, and keeps them
   * only if the current epoch's roster lists that key and this device's new row, both with valid tags. False while
   * the other device has not approved yet.
   */
  async accept(request: KeyRequest | undefined = this.request): Promise<boolean> {
    if (!request || request.id !== this.request?.id || request.status !== "approved") return false;
    const approverKey = request.approver_public_key;
    if (!approverKey || (await keyId(approverKey)) !== request.approver_key_id) throw new ApprovalRefusedError("approver key");
    const sender = await importPublicKey(approverKey);
    const state = await this.server.state();
    const current = state.epoch;
    const from = state.wraps.filter((wrap) => wrap.mode === "auth" && wrap.sender_key_id === request.approver_key_id);
    if (current === null || !from.some((wrap) => wrap.epoch === current)) throw new ApprovalRefusedError("no wrap of the current epoch");
    const opened = new Map<number, Bytes>();
    for (const wrap of from) {
      opened.set(
        wrap.epoch,
        await openEpochKey(wrap, { userId: this.userId, epoch: wrap.epoch }, this.held.pair, { mode: "auth", senderPublicKey: sender }),
      );
    }
    // Checked before anything is kept: the current epoch's roster must vouch for the approver and for this device.
    const currentKey = opened.get(current);
    if (!currentKey) throw new ApprovalRefusedError("no wrap of the current epoch");
    const roster = (await deriveEpochKeys(currentKey, this.userId)).roster;
    const rows = state.roster.filter((row) => row.epoch === current);
    const vouched = async (key: string, addedBy?: string) => {
      const row = rows.find((r) => r.key_id === key && r.kind === "device" && (addedBy === undefined || r.added_by_key_id === addedBy));
      return row !== undefined && (await verifyRosterRow(roster, rosterRowOf(this.userId, row), row.tag));
    };
    if (!(await vouched(request.approver_key_id ?? "")) || !(await vouched(this.held.keyId, request.approver_key_id ?? ""))) {
      throw new ApprovalRefusedError("roster");
    }
    for (const [epoch, key] of opened) this.held.epochs.set(epoch, await this.storage.saveEpoch(epoch, key));
    return true;
  }
}

/** A keyed device's side of one request it answered. */
export class KeyApprover extends RequestSide {
  private readonly nonce = makeCheckNonce();

  constructor(
    private readonly userId: string,
    private readonly held: HeldKeys,
    private readonly server: KeyApprovalServer,
  ) {
    super();
  }

  /** Compare codes: answers the request (409 if another device was first). */
  async compare(request: KeyRequest): Promise<KeyRequest> {
    this.request = await this.server.answer(request.id, this.nonce);
    return this.request;
  }

  /** Follows the request: once revealed, checks the nonce against the commitment (ending it if it fails). */
  async update(request: KeyRequest): Promise<ApprovalStep> {
    const shown = this.take(request);
    if (shown) return shown;
    if (request.requester_nonce === null || request.status === "answered") return { step: "waiting" };
    if (!(await verifyCheckCommitment(request.commitment, request.requester_public_key, request.requester_nonce))) {
      await this.server.deny(request.id).catch(() => undefined);
      return { step: "failed" };
    }
    const code = await checkCode({
      requestId: request.id,
      requesterPublicKey: request.requester_public_key,
      approverPublicKey: await exportPublicKey(this.held.pair.publicKey),
      requesterNonce: request.requester_nonce,
      approverNonce: this.nonce,
    });
    return { step: "compare", code };
  }

  async deny(): Promise<KeyRequest> {
    if (!this.request) throw new Error("Nothing to deny");
    this.request = await this.server.deny(this.request.id);
    return this.request;
  }

  /** Approve: every epoch this device holds, sealed for the asking device, and its row in the current roster. */
  async approve(): Promise<KeyRequest> {
    const request = this.request;
    if (request?.status !== "revealed") throw new Error("Nothing to approve yet");
    const state = await this.server.state();
    const current = state.epoch;
    const currentKeys = current === null ? undefined : this.held.epochs.get(current);
    if (current === null || !currentKeys) throw new Error("This device does not hold the account's current key");
    const recipient = await importPublicKey(request.requester_public_key);
    const wraps: ApproveKeyRequestInput["wraps"] = [];
    for (const own of state.wraps) {
      if (!this.held.epochs.has(own.epoch)) continue;
      const sender = await trustedSender(this.userId, this.held, own, state.roster);
      if (!sender) continue;
      const place = { userId: this.userId, epoch: own.epoch };
      // The raw key lives only for this re-wrap.
      const epochKey = await openEpochKey(own, place, this.held.pair, { mode: "auth", senderPublicKey: sender });
      const wrap = await wrapEpochKey(epochKey, place, recipient, { mode: "auth", senderKeyPair: this.held.pair });
      epochKey.fill(0);
      wraps.push({ epoch: own.epoch, recipient_key_id: request.requester_key_id, sender_key_id: this.held.keyId, mode: "auth", ...wrap });
    }
    if (!wraps.some((wrap) => wrap.epoch === current)) throw new UndecryptableError("This device's own key for the current epoch");
    const row: RosterRow = {
      userId: this.userId,
      epoch: current,
      keyId: request.requester_key_id,
      publicKey: request.requester_public_key,
      kind: "device",
      addedByKeyId: this.held.keyId,
    };
    const roster = {
      epoch: current,
      key_id: row.keyId,
      public_key: row.publicKey,
      kind: "device" as const,
      added_by_key_id: this.held.keyId,
      tag: await rosterTag(currentKeys.roster, row),
    };
    this.request = await this.server.approve(request.id, { wraps, roster });
    return this.request;
  }
}
