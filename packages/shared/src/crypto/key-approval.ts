/**
 * Approval by a typed code (docs/protocol/encryption.md, "Approving a device"), both sides, the same in the browser
 * and the CLI. The asking device (`KeyRequester`) makes the code once, shows it and posts its CPace share; the
 * answering device (`KeyApprover`) answers with its share for the code the person typed and a confirmation. Only the
 * asking device can tell whether the code was right: it confirms back, or counts a wrong code and ends the request at
 * the third. Each side keeps the first values it saw of the request (its own and the other side's share, keys and
 * ids): a later copy from the server that differs ends the request, and the code, the wraps and their acceptance use
 * only the kept values. The handover (a wrap of every epoch the approver holds and the new roster row) carries a tag
 * under the exchange's key, checked before anything is opened.
 */

import { type ApproveKeyRequestInput, KEY_REQUEST_MAX_FAILURES, type KeysState } from "../keys.ts";
import type { KeyRequest } from "../responses.ts";
import {
  type ApprovalKeys,
  type ApprovalSecret,
  approvalKeys,
  handoverConfirmation,
  makeApprovalCode,
  makeApprovalSecret,
  normalizeApprovalCode,
  sameTag,
} from "./approval-exchange.ts";
import { rosterRowOf, trustedSender } from "./chain-rule.ts";
import { exportPublicKey, importPublicKey, keyId } from "./device-key.ts";
import type { Bytes } from "./encoding.ts";
import { deriveEpochKeys } from "./epoch-keys.ts";
import { UndecryptableError } from "./errors.ts";
import type { HeldKeys, KeyStorage } from "./held-keys.ts";
import { type RosterRow, rosterTag, verifyRosterRow } from "./roster.ts";
import { openEpochKey, wrapEpochKey } from "./wraps.ts";

/** The routes of /api/keys/requests and the device's key state, as each platform reaches them. */
export interface KeyApprovalServer {
  state(): Promise<KeysState>;
  ask(requesterShare: string): Promise<KeyRequest>;
  answer(id: string, body: { approver_share: string; approver_confirmation: string }): Promise<KeyRequest>;
  confirm(id: string, requesterConfirmation: string): Promise<KeyRequest>;
  reject(id: string): Promise<KeyRequest>;
  approve(id: string, body: ApproveKeyRequestInput): Promise<KeyRequest>;
  deny(id: string): Promise<KeyRequest>;
}

/** Where a request stands for one side: what that device shows. */
export type ApprovalStep =
  /** Nothing to show yet (the approver: its answer is on the way). */
  | { step: "waiting" }
  /** The asking device: the code to type on another device, and the wrong codes typed so far. */
  | { step: "show"; code: string; wrongCodes: number }
  /** The answering device: the code typed was not the one shown; it may be typed again while `left` > 0. */
  | { step: "wrong_code"; wrongCodes: number; left: number }
  /** The codes matched: the approver hands over, the asking device waits for it. */
  | { step: "confirmed" }
  /** The handover is stored (the asking device then accepts it). */
  | { step: "approved" }
  /** A copy of the request changed a value kept before, or a confirmation did not check out: the request was ended. */
  | { step: "refused" }
  | { step: "ended"; status: "denied" | "expired" | "failed" };

/** The asking side's failure to accept a handover: it stays locked and says so. */
export class ApprovalRefusedError extends Error {}

/** The first copy's values of the asking side, as each side keeps them. */
interface KeptRequest {
  id: string;
  sessionId: string;
  requesterShare: string;
  requesterKeyId: string;
  requesterPublicKey: string;
}

const keptOf = (request: KeyRequest): KeptRequest => ({
  id: request.id,
  sessionId: request.session_id,
  requesterShare: request.requester_share,
  requesterKeyId: request.requester_key_id,
  requesterPublicKey: request.requester_public_key,
});

const sameRequester = (kept: KeptRequest, request: KeyRequest) =>
  request.session_id === kept.sessionId &&
  request.requester_share === kept.requesterShare &&
  request.requester_key_id === kept.requesterKeyId &&
  request.requester_public_key === kept.requesterPublicKey;

const endedStatus = (status: KeyRequest["status"]) => status === "denied" || status === "expired" || status === "failed";

/** What both sides keep of the one request they follow, and how a side ends it when a copy does not agree. */
abstract class RequestSide {
  protected kept: KeptRequest | undefined;
  protected end: ApprovalStep | undefined;

  constructor(protected readonly server: KeyApprovalServer) {}

  get id(): string | undefined {
    return this.kept?.id;
  }

  /** Ends the request on the server (best effort) and for good on this side. */
  protected async refuseCopy(): Promise<ApprovalStep> {
    this.end = { step: "refused" };
    if (this.kept) await this.server.deny(this.kept.id).catch(() => undefined);
    return this.end;
  }

  /** The step to show without going further, or undefined when the side goes on with this copy. */
  protected async screen(request: KeyRequest): Promise<ApprovalStep | undefined> {
    const kept = this.kept;
    if (!kept || request.id !== kept.id) return { step: "waiting" };
    if (this.end) return this.end;
    if (!sameRequester(kept, request)) return this.refuseCopy();
    if (endedStatus(request.status)) {
      this.end = { step: "ended", status: request.status as "denied" | "expired" | "failed" };
      return this.end;
    }
    return undefined;
  }

  protected transcript(approver: { keyId: string; publicKey: string; share: string }) {
    const kept = this.kept as KeptRequest;
    return {
      requestId: kept.id,
      requesterKeyId: kept.requesterKeyId,
      requesterPublicKey: kept.requesterPublicKey,
      approverKeyId: approver.keyId,
      approverPublicKey: approver.publicKey,
      requesterShare: kept.requesterShare,
      approverShare: approver.share,
    };
  }
}

/** The locked device's side of one request. */
export class KeyRequester extends RequestSide {
  /** Made once; the device shows it for the whole request (a QR pairing's typed code brings its own, `options.code`). */
  readonly code: string;
  private secret: ApprovalSecret | undefined;
  /** The answering device, kept once its confirmation checked out. */
  private approver: { keyId: string; publicKey: string; share: string; keys: ApprovalKeys } | undefined;
  /** The answers already judged (by share), so that a copy seen twice counts once. */
  private readonly judged = new Set<string>();
  private wrongCodes = 0;

  constructor(
    private userId: string,
    private readonly held: HeldKeys,
    private storage: KeyStorage,
    server: KeyApprovalServer,
    options: { code?: string } = {},
  ) {
    super(server);
    this.code = options.code ?? makeApprovalCode();
  }

  /** A QR pairing's new device asks before it is signed in: the account and its storage are known only then. */
  signedIn(userId: string, storage: KeyStorage): void {
    this.userId = userId;
    this.storage = storage;
  }

  /** Posts the share: every keyed device of the account now shows the request. */
  async ask(): Promise<KeyRequest> {
    if (this.kept) throw new Error("This side asked already");
    const publicKey = await exportPublicKey(this.held.pair.publicKey);
    this.secret = makeApprovalSecret(this.code, publicKey);
    const request = await this.server.ask(this.secret.share);
    this.kept = {
      id: request.id,
      sessionId: request.session_id,
      requesterShare: this.secret.share,
      requesterKeyId: this.held.keyId,
      requesterPublicKey: publicKey,
    };
    if (!sameRequester(this.kept, request)) {
      await this.refuseCopy();
      throw new ApprovalRefusedError("The server answered another key or share than this device's");
    }
    return request;
  }

  private queue: Promise<unknown> = Promise.resolve();

  /**
   * Follows the request as the server tells it: judges each answer once, confirms the right code, counts wrong ones.
   * Copies are taken one at a time, in the order given, however they arrive (a live event and a fetch may overlap).
   */
  update(request: KeyRequest): Promise<ApprovalStep> {
    const next = this.queue.then(() => this.take(request));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async take(request: KeyRequest): Promise<ApprovalStep> {
    const shown = await this.screen(request);
    if (shown) return shown;
    const showing: ApprovalStep = { step: "show", code: this.code, wrongCodes: this.wrongCodes };
    if (this.approver) {
      const a = this.approver;
      if (request.approver_key_id !== a.keyId || request.approver_public_key !== a.publicKey || request.approver_share !== a.share) {
        return this.refuseCopy();
      }
      return request.status === "approved" ? { step: "approved" } : { step: "confirmed" };
    }
    if (request.status === "confirmed" || request.status === "approved") return this.refuseCopy();
    const share = request.approver_share;
    if (request.status !== "answered" || !share || !request.approver_key_id || !request.approver_public_key) return showing;
    if (this.judged.has(share)) return showing;
    this.judged.add(share);
    const approver = { keyId: request.approver_key_id, publicKey: request.approver_public_key, share };
    const keys = approvalKeys(this.secret as ApprovalSecret, share, this.transcript(approver));
    const genuine =
      keys !== undefined &&
      sameTag(request.approver_confirmation, keys.approverConfirmation) &&
      (await keyId(approver.publicKey).catch(() => "")) === approver.keyId;
    if (keys && genuine) {
      this.approver = { ...approver, keys };
      await this.server.confirm(request.id, keys.requesterConfirmation);
      return { step: "confirmed" };
    }
    this.wrongCodes += 1;
    const rejected = await this.server.reject(request.id).catch(() => undefined);
    if (this.wrongCodes >= KEY_REQUEST_MAX_FAILURES) {
      // Ended here whatever the server counts.
      if (rejected?.status !== "failed") await this.server.deny(request.id).catch(() => undefined);
      this.end = { step: "ended", status: "failed" };
      return this.end;
    }
    return { step: "show", code: this.code, wrongCodes: this.wrongCodes };
  }

  /** No, or another way in was taken: ends the request on both screens (after an approval too, which takes it back). */
  async refuse(): Promise<void> {
    this.end = { step: "ended", status: "denied" };
    if (this.kept) await this.server.deny(this.kept.id);
  }

  /**
   * Accepts the handover once it came from the device whose confirmation checked out. Keeps the epochs only if the
   * handover's tag checks out under the exchange's key, every wrap opens from that device's key, and the current
   * epoch's roster lists that key and this device's new row, both with valid tags. False while there is none yet.
   */
  async accept(request: KeyRequest): Promise<boolean> {
    const step = await this.update(request);
    if (step.step === "refused" || step.step === "ended") throw new ApprovalRefusedError(step.step);
    const approver = this.approver;
    if (step.step !== "approved" || !approver) return false;
    const state = await this.server.state();
    const current = state.epoch;
    const from = state.wraps.filter(
      (wrap) => wrap.mode === "auth" && wrap.sender_key_id === approver.keyId && wrap.recipient_key_id === this.held.keyId,
    );
    const newRow = state.roster.find((r) => r.epoch === current && r.key_id === this.held.keyId && r.added_by_key_id === approver.keyId);
    if (current === null || !newRow || !from.some((wrap) => wrap.epoch === current))
      throw new ApprovalRefusedError("no wrap of the current epoch");
    if (!sameTag(request.handover_confirmation, handoverConfirmation(approver.keys, { wraps: from, roster: newRow }))) {
      throw new ApprovalRefusedError("handover");
    }
    const sender = await importPublicKey(approver.publicKey);
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
    const vouched = async (key: string, publicKey: string, addedBy?: string) => {
      const row = rows.find(
        (r) =>
          r.key_id === key && r.public_key === publicKey && r.kind === "device" && (addedBy === undefined || r.added_by_key_id === addedBy),
      );
      return row !== undefined && (await verifyRosterRow(roster, rosterRowOf(this.userId, row), row.tag));
    };
    const ownPublicKey = (this.kept as KeptRequest).requesterPublicKey;
    if (!(await vouched(approver.keyId, approver.publicKey)) || !(await vouched(this.held.keyId, ownPublicKey, approver.keyId))) {
      throw new ApprovalRefusedError("roster");
    }
    for (const [epoch, key] of opened) this.held.epochs.set(epoch, await this.storage.saveEpoch(epoch, key));
    return true;
  }
}

/** A keyed device's side of one request, from the first copy of it this device saw. */
export class KeyApprover extends RequestSide {
  /** The try in progress: its secret, share and keys, and the wrong codes counted when it was sent. */
  private attempt: { share: string; keys: ApprovalKeys; failuresBefore: number } | undefined;
  private confirmed = false;

  constructor(
    private readonly userId: string,
    private readonly held: HeldKeys,
    server: KeyApprovalServer,
    /** How a typed code reads (a QR pairing's: the password half of the short code). */
    private readonly readCode: (typed: string) => string | undefined = normalizeApprovalCode,
  ) {
    super(server);
  }

  /** Keeps the first copy seen (call it as soon as the request is shown); false once a copy differs from it. */
  see(request: KeyRequest): boolean {
    if (!this.kept) this.kept = keptOf(request);
    return request.id !== this.kept.id || sameRequester(this.kept, request);
  }

  /** Approve with the code the person typed: answers with a share for it and a confirmation (409 if another device was first). */
  async answer(request: KeyRequest, typedCode: string): Promise<ApprovalStep> {
    if (!this.see(request)) return this.refuseCopy();
    if (this.end) return this.end;
    const code = this.readCode(typedCode);
    if (!code) throw new TypeError("The code is six digits");
    const kept = this.kept as KeptRequest;
    const secret = makeApprovalSecret(code, kept.requesterPublicKey);
    const self = { keyId: this.held.keyId, publicKey: await exportPublicKey(this.held.pair.publicKey), share: secret.share };
    const keys = approvalKeys(secret, kept.requesterShare, this.transcript(self));
    if (!keys) return this.refuseCopy();
    this.attempt = { share: secret.share, keys, failuresBefore: request.failures };
    const answered = await this.server.answer(kept.id, { approver_share: secret.share, approver_confirmation: keys.approverConfirmation });
    return this.update(answered);
  }

  /** Follows the request: a wrong code, or the asking device's confirmation, which must check out under this try's key. */
  async update(request: KeyRequest): Promise<ApprovalStep> {
    if (!this.see(request)) return this.refuseCopy();
    const shown = await this.screen(request);
    if (shown) return shown;
    const attempt = this.attempt;
    if (!attempt) return { step: "waiting" };
    if (request.status === "pending") {
      if (request.failures <= attempt.failuresBefore) return { step: "waiting" };
      this.attempt = undefined;
      return { step: "wrong_code", wrongCodes: request.failures, left: Math.max(0, KEY_REQUEST_MAX_FAILURES - request.failures) };
    }
    if (request.status === "answered") return { step: "waiting" };
    // confirmed or approved: only for this try's share, and with the asking device's confirmation.
    if (request.approver_share !== attempt.share || request.approver_key_id !== this.held.keyId) return this.refuseCopy();
    if (!sameTag(request.requester_confirmation, attempt.keys.requesterConfirmation)) return this.refuseCopy();
    this.confirmed = true;
    return request.status === "approved" ? { step: "approved" } : { step: "confirmed" };
  }

  async deny(): Promise<KeyRequest> {
    if (!this.kept) throw new Error("Nothing to deny");
    this.end = { step: "ended", status: "denied" };
    return this.server.deny(this.kept.id);
  }

  /** Hands over, once confirmed: every epoch this device holds, sealed for the kept key, its row, and the tag. */
  async approve(): Promise<KeyRequest> {
    const kept = this.kept;
    const attempt = this.attempt;
    if (!kept || !attempt || !this.confirmed || this.end) throw new Error("Nothing to approve yet");
    const state = await this.server.state();
    const current = state.epoch;
    const currentKeys = current === null ? undefined : this.held.epochs.get(current);
    if (current === null || !currentKeys) throw new Error("This device does not hold the account's current key");
    const recipient = await importPublicKey(kept.requesterPublicKey);
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
      wraps.push({ epoch: own.epoch, recipient_key_id: kept.requesterKeyId, sender_key_id: this.held.keyId, mode: "auth", ...wrap });
    }
    if (!wraps.some((wrap) => wrap.epoch === current)) throw new UndecryptableError("This device's own key for the current epoch");
    const row: RosterRow = {
      userId: this.userId,
      epoch: current,
      keyId: kept.requesterKeyId,
      publicKey: kept.requesterPublicKey,
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
    const handover_confirmation = handoverConfirmation(attempt.keys, { wraps, roster });
    return this.server.approve(kept.id, { wraps, roster, handover_confirmation });
  }
}
