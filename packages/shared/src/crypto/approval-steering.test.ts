/**
 * Issue 41's steering, played by a server that relays both sides of an approval and changes what it relays, against
 * the real KeyRequester and KeyApprover with the real crypto. Today's check-code approval let this server swap in its
 * own key after the approver's first message and get the epoch key wrapped for it; the typed-code exchange refuses.
 */
import { describe, expect, it } from "vitest";
import { type ApproveKeyRequestInput, KEY_REQUEST_MAX_FAILURES, type KeysState, type StoredRosterEntry } from "../keys.ts";
import type { KeyRequest } from "../responses.ts";
import { approvalKeys, makeApprovalSecret } from "./approval-exchange.ts";
import { exportPublicKey, generateDeviceKeyPair, keyId } from "./device-key.ts";
import { deriveEpochKeys, makeEpochKey } from "./epoch-keys.ts";
import type { HeldKeys } from "./held-keys.ts";
import { ApprovalRefusedError, type KeyApprovalServer, KeyApprover, KeyRequester } from "./key-approval.ts";
import type { CryptoKeyPair } from "./key-types.ts";
import { memoryKeyStorage } from "./memory-key-storage.ts";
import { rosterTag } from "./roster.ts";
import { openEpochKey, wrapEpochKey } from "./wraps.ts";

const userId = "u_steer";

/** The keyed device after making epoch 1, and the key state the server answers it. */
async function keyed() {
  const pair = await generateDeviceKeyPair();
  const id = await keyId(pair.publicKey);
  const epochKey = makeEpochKey();
  const keys = await deriveEpochKeys(epochKey, userId);
  const wrap = await wrapEpochKey(epochKey, { userId, epoch: 1 }, pair.publicKey, { mode: "auth", senderKeyPair: pair });
  const publicKey = await exportPublicKey(pair.publicKey);
  const row = { userId, epoch: 1, keyId: id, publicKey, kind: "device" as const, addedByKeyId: null };
  const roster: StoredRosterEntry = { ...rowOut(row), added_at: 1, tag: await rosterTag(keys.roster, row) };
  const state: KeysState = {
    session_id: "s_a",
    key_id: id,
    epoch: 1,
    rotation_due: false,
    wraps: [{ epoch: 1, recipient_key_id: id, sender_key_id: id, mode: "auth", ...wrap, created_at: 1 }],
    roster: [roster],
    other_devices_with_current_key: 0,
    holders: [id],
  };
  const held: HeldKeys = { keyId: id, pair, epochs: new Map([[1, keys]]) };
  return { held, state, epochKey, publicKey };
}

const rowOut = (r: { epoch: number; keyId: string; publicKey: string; addedByKeyId: string | null }) => ({
  epoch: r.epoch,
  key_id: r.keyId,
  public_key: r.publicKey,
  kind: "device" as const,
  added_by_key_id: r.addedByKeyId,
});

/** A device (its pair and key id) that a server could make for itself. */
async function someKey() {
  const pair = await generateDeviceKeyPair();
  return { pair, keyId: await keyId(pair.publicKey), publicKey: await exportPublicKey(pair.publicKey) };
}

type Tamper = (copy: KeyRequest) => KeyRequest;

/**
 * A server that follows the steps as ours does (statuses, wrong codes, the handover stored in the new device's key
 * state) and relays each side its copy through `toApprover` / `toRequester`, which the attacks change.
 */
async function relay() {
  const a = await keyed();
  const storage = memoryKeyStorage(userId);
  const locked = await someKey();
  await storage.saveDevice(locked.keyId, locked.pair);
  const tamper: { toApprover: Tamper; toRequester: Tamper; handover?: (body: ApproveKeyRequestInput) => ApproveKeyRequestInput } = {
    toApprover: (c) => c,
    toRequester: (c) => c,
  };
  let request: KeyRequest | undefined;
  const handedOver: ApproveKeyRequestInput[] = [];
  const confirmations: string[] = [];
  const rejected = { count: 0 };
  const now = () => request as KeyRequest;
  const set = (change: Partial<KeyRequest>) => {
    request = { ...now(), ...change };
    return request;
  };
  const clearAnswer = {
    approver_session_id: null,
    approver_public_key: null,
    approver_key_id: null,
    approver_share: null,
    approver_confirmation: null,
  };
  const common = {
    confirm: async (_id: string, confirmation: string) => {
      confirmations.push(confirmation);
      return set({ status: "confirmed", requester_confirmation: confirmation });
    },
    reject: async () => {
      rejected.count += 1;
      const failures = now().failures + 1;
      return set({ ...clearAnswer, failures, status: failures >= KEY_REQUEST_MAX_FAILURES ? "failed" : "pending" });
    },
    approve: async (_id: string, body: ApproveKeyRequestInput) => {
      const stored = tamper.handover ? tamper.handover(body) : body;
      handedOver.push(stored);
      return set({ status: "approved", handover_confirmation: stored.handover_confirmation });
    },
    deny: async () => set({ status: "denied" }),
    answer: async (_id: string, body: { approver_share: string; approver_confirmation: string }) =>
      set({ status: "answered", approver_session_id: "s_a", approver_public_key: a.publicKey, approver_key_id: a.held.keyId, ...body }),
  };
  const requesterState = async (): Promise<KeysState> => {
    const body = handedOver.at(-1);
    if (!body) return { ...a.state, session_id: "s_l", key_id: locked.keyId, wraps: [] };
    return {
      ...a.state,
      session_id: "s_l",
      key_id: locked.keyId,
      wraps: body.wraps.map((w) => ({ ...w, sender_key_id: w.sender_key_id ?? null, created_at: 2 })),
      roster: [...a.state.roster, { ...body.roster, added_by_key_id: body.roster.added_by_key_id ?? null, added_at: 2 }],
    };
  };
  const toRequester: KeyApprovalServer = {
    ...common,
    state: requesterState,
    ask: async (share) => {
      request = {
        id: "9f0c1e8a-0000-4000-8000-000000000002",
        session_id: "s_l",
        device: {
          id: "s_l",
          name: "Laptop",
          browser: "",
          os: "",
          kind: "computer",
          ip: "",
          signed_in_at: 1,
          last_seen_at: 1,
          key_status: "waiting",
        },
        status: "pending",
        requester_public_key: locked.publicKey,
        requester_key_id: locked.keyId,
        requester_share: share,
        ...clearAnswer,
        requester_confirmation: null,
        handover_confirmation: null,
        failures: 0,
        created_at: 1,
        expires_at: 2,
      } as KeyRequest;
      return tamper.toRequester(request);
    },
    confirm: async (id, c) => tamper.toRequester(await common.confirm(id, c)),
    reject: async () => tamper.toRequester(await common.reject()),
  };
  const toApprover: KeyApprovalServer = {
    ...common,
    state: async () => a.state,
    ask: async () => {
      throw new Error("not the approver's");
    },
    answer: async (id, body) => tamper.toApprover(await common.answer(id, body)),
    approve: async (id, body) => tamper.toApprover(await common.approve(id, body)),
  };
  const requester = new KeyRequester(userId, storage.held as HeldKeys, storage, toRequester);
  const approver = new KeyApprover(userId, a.held, toApprover);
  return {
    a,
    locked,
    storage,
    requester,
    approver,
    tamper,
    handedOver,
    confirmations,
    get rejected() {
      return rejected.count;
    },
    now,
    set,
    forApprover: () => tamper.toApprover(now()),
    forRequester: () => tamper.toRequester(now()),
  };
}

/** Whether `key` can open any epoch wrap handed over, sealed by the keyed device. */
async function opensAny(r: Awaited<ReturnType<typeof relay>>, pair: CryptoKeyPair) {
  for (const body of r.handedOver) {
    for (const wrap of body.wraps) {
      const opened = await openEpochKey(wrap, { userId, epoch: wrap.epoch }, pair, {
        mode: "auth",
        senderPublicKey: r.a.held.pair.publicKey,
      }).catch(() => undefined);
      if (opened) return true;
    }
  }
  return false;
}

describe("an approval by typed code, with a server in the middle", () => {
  it("the code typed right: both confirm, the handover is accepted, the new device holds epoch 1", async () => {
    const r = await relay();
    await r.requester.ask();
    expect(await r.requester.update(r.forRequester())).toEqual({ step: "show", code: r.requester.code, wrongCodes: 0 });
    expect(await r.approver.answer(r.forApprover(), r.requester.code)).toEqual({ step: "waiting" });
    expect(await r.requester.update(r.forRequester())).toEqual({ step: "confirmed" });
    expect(await r.approver.update(r.forApprover())).toEqual({ step: "confirmed" });
    await r.approver.approve();
    expect(await r.requester.accept(r.forRequester())).toBe(true);
    expect(r.storage.held?.epochs.has(1)).toBe(true);
  });

  it("issue 41's steering: its own key and share swapped in after the approver's first message get nothing", async () => {
    const r = await relay();
    await r.requester.ask();
    r.approver.see(r.forApprover());
    await r.approver.answer(r.forApprover(), r.requester.code);
    // The server now tells the approver its own key, with a share for each code it tries.
    const server = await someKey();
    for (const guess of ["000 000", "123 456", r.requester.code]) {
      const share = makeApprovalSecret(guess, server.publicKey).share;
      const steered = { ...r.now(), requester_public_key: server.publicKey, requester_key_id: server.keyId, requester_share: share };
      expect(await r.approver.update(steered)).toEqual({ step: "refused" });
    }
    await expect(r.approver.approve()).rejects.toThrow();
    expect(r.now().status).toBe("denied");
    expect(r.handedOver).toEqual([]);
    expect(await opensAny(r, server.pair)).toBe(false);
  });

  it("the server answering the asking device itself: every code it tries is a wrong code, and the third ends the request", async () => {
    const r = await relay();
    await r.requester.ask();
    const server = await someKey();
    const steps = [];
    for (const guess of ["000 000", "111 111", "222 222", "333 333"]) {
      const secret = makeApprovalSecret(guess, r.locked.publicKey);
      const approver = { keyId: server.keyId, publicKey: server.publicKey, share: secret.share };
      const keys = approvalKeys(secret, r.now().requester_share, {
        requestId: r.now().id,
        requesterKeyId: r.locked.keyId,
        requesterPublicKey: r.locked.publicKey,
        approverKeyId: approver.keyId,
        approverPublicKey: approver.publicKey,
        requesterShare: r.now().requester_share,
        approverShare: approver.share,
      });
      r.set({
        status: "answered",
        approver_session_id: "s_server",
        approver_public_key: approver.publicKey,
        approver_key_id: approver.keyId,
        approver_share: approver.share,
        approver_confirmation: keys?.approverConfirmation ?? null,
      });
      steps.push(await r.requester.update(r.forRequester()));
    }
    // (A try that hit the real code would be confirmed: one in a million per try, three tries per request.)
    expect(steps.map((s) => s.step)).toEqual(guessSteps(r.requester.code, ["000 000", "111 111", "222 222", "333 333"]));
    expect(r.confirmations).toEqual([]);
    expect(r.rejected).toBe(KEY_REQUEST_MAX_FAILURES);
    await expect(r.requester.accept({ ...r.now(), status: "approved" })).rejects.toThrow(ApprovalRefusedError);
  });

  it("the approver's answer passed on with the server's key in place of the approver's: a wrong code, nothing confirmed", async () => {
    const r = await relay();
    await r.requester.ask();
    const server = await someKey();
    r.tamper.toRequester = (c) => (c.approver_key_id ? { ...c, approver_key_id: server.keyId, approver_public_key: server.publicKey } : c);
    await r.approver.answer(r.forApprover(), r.requester.code);
    expect(await r.requester.update(r.forRequester())).toEqual({ step: "show", code: r.requester.code, wrongCodes: 1 });
    expect(r.confirmations).toEqual([]);
    expect(await r.approver.update(r.forApprover())).toEqual({ step: "wrong_code", wrongCodes: 1, left: 2 });
  });

  it("a second copy of the request that differs from the first is refused, on both sides", async () => {
    const r = await relay();
    await r.requester.ask();
    const other = makeApprovalSecret("123 456", r.locked.publicKey).share;
    expect(await r.requester.update({ ...r.now(), requester_share: other })).toEqual({ step: "refused" });
    expect(r.now().status).toBe("denied");
    // Once refused, a good copy does not bring it back.
    expect(await r.requester.update({ ...r.now(), status: "pending" })).toEqual({ step: "refused" });

    const s = await relay();
    await s.requester.ask();
    s.approver.see(s.forApprover());
    const server = await someKey();
    expect(await s.approver.update({ ...s.now(), requester_public_key: server.publicKey })).toEqual({ step: "refused" });
    expect(await s.approver.answer(s.now(), s.requester.code)).toEqual({ step: "refused" });
    expect(s.handedOver).toEqual([]);
  });

  it("a handover swapped after the confirmation fails its tag: the new device keeps nothing", async () => {
    const r = await relay();
    await r.requester.ask();
    await r.approver.answer(r.forApprover(), r.requester.code);
    await r.requester.update(r.forRequester());
    await r.approver.update(r.forApprover());
    const server = await someKey();
    r.tamper.handover = (body) => ({
      ...body,
      wraps: body.wraps.map((w) => ({ ...w, sender_key_id: server.keyId })),
      roster: { ...body.roster, added_by_key_id: server.keyId },
    });
    await r.approver.approve();
    await expect(r.requester.accept(r.forRequester())).rejects.toThrow(ApprovalRefusedError);
    expect(r.storage.held?.epochs.size).toBe(0);
  });

  it("a wrong code typed three times ends the request on both devices", async () => {
    const r = await relay();
    await r.requester.ask();
    const wrong = r.requester.code === "000 000" ? "000 001" : "000 000";
    const seen = [];
    for (let i = 0; i < KEY_REQUEST_MAX_FAILURES; i++) {
      await r.approver.answer(r.forApprover(), wrong);
      seen.push([await r.requester.update(r.forRequester()), await r.approver.update(r.forApprover())]);
    }
    expect(seen).toEqual([
      [
        { step: "show", code: r.requester.code, wrongCodes: 1 },
        { step: "wrong_code", wrongCodes: 1, left: 2 },
      ],
      [
        { step: "show", code: r.requester.code, wrongCodes: 2 },
        { step: "wrong_code", wrongCodes: 2, left: 1 },
      ],
      [
        { step: "ended", status: "failed" },
        { step: "ended", status: "failed" },
      ],
    ]);
    expect(r.now().status).toBe("failed");
    // The right code after that is too late.
    expect(await r.approver.answer(r.forApprover(), r.requester.code)).toEqual({ step: "ended", status: "failed" });
    expect(r.confirmations).toEqual([]);
  });
});

/** The steps the asking device shows for the server's tries: wrong codes until the third ends it. */
function guessSteps(code: string, guesses: string[]): string[] {
  let wrong = 0;
  const out: string[] = [];
  for (const guess of guesses) {
    if (wrong >= KEY_REQUEST_MAX_FAILURES) out.push("ended");
    else if (guess === code) out.push("confirmed");
    else {
      wrong += 1;
      out.push(wrong >= KEY_REQUEST_MAX_FAILURES ? "ended" : "show");
    }
  }
  return out;
}
