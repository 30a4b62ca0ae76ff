import { describe, expect, it } from "vitest";
import { recoveryUnlockSchema, type SetRecoveryInput, type StoredRecovery, setRecoverySchema } from "../key-recovery.ts";
import type { KeysState, StoredKeyWrap, StoredRosterEntry } from "../keys.ts";
import { RECOVERY_TEXT } from "../ui-text.ts";
import { AccountKeys } from "./account-keys.ts";
import { generateDeviceKeyPair, keyId } from "./device-key.ts";
import { fromBase64Url, sha256, toBase64Url } from "./encoding.ts";
import { deriveEpochKeys } from "./epoch-keys.ts";
import type { HeldKeys, KeyStorage, KeysServer } from "./held-keys.ts";
import { makeRecoveryKit, RecoveryRefusedError, type RecoveryServer, unlockWithRecoveryCode } from "./recovery.ts";
import { deriveRecoveryKeys, makeRecoveryCode, openRecoveryAnchor, RecoveryCodeError } from "./recovery-code.ts";
import { openEpochKey, wrapEpochKey } from "./wraps.ts";

const userId = "u_recovery";

/**
 * The server's part, in memory, with the rules the real one keeps: epochs move by `expected`, a rotation must carry a
 * recovery key along, a device's wraps go when it is signed out, and only the code's proof adds a device. The real
 * server is tested over HTTP in apps/server (recovery.test.ts); this is about what the devices compute.
 */
class MemoryAccount {
  epoch: number | null = null;
  rotationDue = false;
  wraps: StoredKeyWrap[] = [];
  roster: StoredRosterEntry[] = [];
  recovery: (StoredRecovery & { proof_hash: string }) | undefined;
  private readonly keys = new Map<string, string | null>();
  private at = 0;

  state(session: string): KeysState {
    const keyIdOf = this.keys.get(session) ?? null;
    const wraps = this.wraps.filter((w) => w.recipient_key_id === keyIdOf);
    const epochs = new Set([...wraps.map((w) => w.epoch), ...(this.epoch === null ? [] : [this.epoch])]);
    const holders = this.wraps.filter((w) => w.epoch === this.epoch).map((w) => w.recipient_key_id);
    return {
      session_id: session,
      key_id: keyIdOf,
      epoch: this.epoch,
      rotation_due: this.rotationDue,
      wraps,
      roster: this.roster.filter((r) => epochs.has(r.epoch)),
      other_devices_with_current_key: 0,
      holders: holders.sort(),
      ...(this.recovery ? { recovery: { key_id: this.recovery.key_id, created_at: this.recovery.created_at } } : {}),
    };
  }

  signOut(session: string) {
    const gone = this.keys.get(session);
    if (this.wraps.some((w) => w.recipient_key_id === gone && w.epoch === this.epoch)) this.rotationDue = true;
    this.wraps = this.wraps.filter((w) => w.recipient_key_id !== gone);
    this.keys.delete(session);
  }

  private store(wraps: Array<Omit<StoredKeyWrap, "created_at" | "sender_key_id"> & { sender_key_id?: string | null }>) {
    for (const w of wraps) {
      this.wraps = this.wraps.filter((old) => !(old.epoch === w.epoch && old.recipient_key_id === w.recipient_key_id));
      this.wraps.push({ ...w, sender_key_id: w.sender_key_id ?? null, created_at: ++this.at });
    }
  }

  private list(rows: Array<Omit<StoredRosterEntry, "added_at" | "added_by_key_id"> & { added_by_key_id?: string | null }>) {
    for (const r of rows) this.roster.push({ ...r, added_by_key_id: r.added_by_key_id ?? null, added_at: ++this.at });
  }

  server(session: string): KeysServer & RecoveryServer {
    this.keys.set(session, this.keys.get(session) ?? null);
    const recovery = async () => {
      const stored = this.recovery;
      if (!stored) return { recovery: null };
      const wraps = this.wraps.filter((w) => w.recipient_key_id === stored.key_id).sort((a, b) => a.epoch - b.epoch);
      return { recovery: { ...stored, wraps, roster: this.roster.filter((r) => r.epoch >= stored.anchor_epoch) } };
    };
    return {
      state: async () => this.state(session),
      setDeviceKey: async (publicKey) => {
        this.keys.set(session, await keyId(publicKey));
      },
      createEpoch: async (body) => {
        if (this.epoch !== body.expected) return { ok: false, code: "key_epoch_taken" };
        const carried = body.wraps.some((w) => w.recipient_key_id === this.recovery?.key_id);
        if (body.reason === "rotation" && this.recovery && !carried) return { ok: false, code: "key_recovery_missing" };
        if (body.reason === "start_over") this.recovery = undefined;
        this.epoch = body.epoch;
        this.rotationDue = false;
        this.store(body.wraps);
        this.list(body.roster);
        return { ok: true, state: this.state(session) };
      },
      recovery,
      save: async (input) => {
        const body = setRecoverySchema.parse(input);
        if (this.recovery) this.wraps = this.wraps.filter((w) => w.recipient_key_id !== this.recovery?.key_id);
        const { anchor, anchor_epoch, proof_hash, public_key } = body;
        this.recovery = {
          key_id: body.roster.key_id,
          public_key,
          anchor,
          anchor_epoch,
          proof_hash,
          created_at: ++this.at,
          wraps: [],
          roster: [],
        };
        this.store(body.wraps);
        this.list([body.roster]);
        return recovery();
      },
      unlock: async (input) => {
        const body = recoveryUnlockSchema.parse(input);
        const own = this.keys.get(session) ?? "";
        if (toBase64Url(await sha256(fromBase64Url(body.proof))) !== this.recovery?.proof_hash) throw new Error("403 proof");
        if (body.roster.epoch !== this.epoch) throw new Error("409 key_epoch_taken");
        this.store(body.wraps.map((w) => ({ ...w, recipient_key_id: own, sender_key_id: own, mode: "auth" as const })));
        this.list([body.roster]);
        return this.state(session);
      },
    };
  }
}

/** A device: its keys in memory, AccountKeys over the memory server. */
/** `beforeEpoch` runs before each epoch this device posts, to let another device act in between. */
function device(account: MemoryAccount, session: string, beforeEpoch?: () => Promise<void>) {
  let held: HeldKeys | undefined;
  const storage: KeyStorage = {
    load: async () => held,
    saveDevice: async (id, pair) => {
      held = { keyId: id, pair, epochs: new Map() };
    },
    saveEpoch: async (epoch, epochKey) => {
      const keys = await deriveEpochKeys(epochKey, userId);
      held?.epochs.set(epoch, keys);
      return keys;
    },
    generatePair: () => generateDeviceKeyPair(),
  };
  const server = account.server(session);
  const keys = new AccountKeys(userId, storage, {
    ...server,
    createEpoch: async (body) => {
      await beforeEpoch?.();
      return server.createEpoch(body);
    },
  });
  const mine = () => {
    if (!held) throw new Error("no keys yet");
    return held;
  };
  return {
    session,
    keys,
    server,
    held: mine,
    makeCode: async (code: string) => server.save(await makeRecoveryKit(userId, mine(), await server.state(), code)),
    unlock: (typed: string) => unlockWithRecoveryCode(userId, mine(), storage, server, typed),
  };
}

async function refusal(work: Promise<unknown>): Promise<string> {
  try {
    await work;
    return "unlocked";
  } catch (error) {
    if (error instanceof RecoveryCodeError) return `code:${error.reason}`;
    if (error instanceof RecoveryRefusedError) return error.reason;
    throw error;
  }
}

describe("making a recovery code", () => {
  it("seals the current epoch into the anchor, wraps every epoch this device holds, and tags the recovery key's row", async () => {
    const account = new MemoryAccount();
    const a = device(account, "s_a");
    await a.keys.sync();
    account.rotationDue = true;
    expect(await a.keys.sync()).toMatchObject({ state: "ready", epoch: 2 });
    const code = await makeRecoveryCode();
    const kit: SetRecoveryInput = await makeRecoveryKit(userId, a.held(), await a.server.state(), code);

    expect(setRecoverySchema.safeParse(kit).success).toBe(true);
    const recovery = await deriveRecoveryKeys(code, userId);
    expect(kit.roster).toMatchObject({ epoch: 2, kind: "recovery", key_id: await keyId(recovery.keyPair.publicKey) });
    expect(kit.wraps.map((w) => w.epoch)).toEqual([1, 2]);
    const anchored = await openRecoveryAnchor(recovery.anchorKey, { userId, epoch: 2 }, kit.anchor);
    const wrapped = await openEpochKey(kit.wraps[1] as StoredKeyWrap, { userId, epoch: 2 }, recovery.keyPair, {
      mode: "auth",
      senderPublicKey: a.held().pair.publicKey,
    });
    expect(wrapped).toEqual(anchored);
    expect(kit.proof_hash).toBe(toBase64Url(await sha256(recovery.proof)));
  });

  it("refuses on a device that does not hold the current epoch", async () => {
    const account = new MemoryAccount();
    await device(account, "s_a").keys.sync();
    const b = device(account, "s_b");
    expect((await b.keys.sync()).state).toBe("locked");
    await expect(makeRecoveryKit(userId, b.held(), await b.server.state(), await makeRecoveryCode())).rejects.toThrow(/current key/);
  });
});

describe("a rotation and the recovery code", () => {
  it("a rotation that raced a new recovery code reads the holders again and carries the code along", async () => {
    const account = new MemoryAccount();
    let raced: (() => Promise<void>) | undefined;
    const a = device(account, "s_a", async () => {
      const once = raced;
      raced = undefined;
      await once?.();
    });
    await a.keys.sync();
    const b = device(account, "s_b");
    await b.keys.sync();
    const first = await makeRecoveryCode();
    await a.makeCode(first);
    await b.unlock(first);
    const c = device(account, "s_c");
    await c.keys.sync();
    await c.unlock(first);

    // C, which held epoch 1, is signed out; as A posts epoch 2, B replaces the code, so A's first try leaves the
    // new recovery key out and is refused.
    const replaced = await makeRecoveryCode();
    raced = async () => {
      await b.makeCode(replaced);
    };
    account.signOut("s_c");
    expect(await a.keys.sync()).toMatchObject({ state: "ready", epoch: 2 });
    const recoveryKey = account.recovery?.key_id;
    expect(account.wraps.filter((w) => w.epoch === 2).map((w) => w.recipient_key_id)).toContain(recoveryKey);
    const d = device(account, "s_d");
    await d.keys.sync();
    await d.unlock(replaced);
    expect(await d.keys.sync()).toMatchObject({ state: "ready", epoch: 2 });
  });
});

describe("unlocking with the recovery code", () => {
  it("opens the anchor, then follows rotations by the chain rule; a device made after a removal still gets in", async () => {
    const account = new MemoryAccount();
    const a = device(account, "s_a");
    await a.keys.sync();
    const code = await makeRecoveryCode();
    await a.makeCode(code);
    expect((await a.server.state()).recovery).toBeDefined();

    const b = device(account, "s_b");
    expect((await b.keys.sync()).state).toBe("locked");
    await b.unlock(code.toLowerCase().replace(/-/g, " "));
    expect(await b.keys.sync()).toMatchObject({ state: "ready", epoch: 1 });
    const bRow = account.roster.find((r) => r.key_id === b.held().keyId);
    expect(bRow).toMatchObject({ epoch: 1, kind: "device", added_by_key_id: account.recovery?.key_id });

    // A is signed out: B rotates, and the recovery key (a holder of epoch 1) gets epoch 2 from B.
    account.signOut("s_a");
    expect(await b.keys.sync()).toMatchObject({ state: "ready", epoch: 2 });
    expect(account.wraps.find((w) => w.epoch === 2 && w.recipient_key_id === account.recovery?.key_id)).toMatchObject({
      sender_key_id: b.held().keyId,
    });

    const c = device(account, "s_c");
    expect((await c.keys.sync()).state).toBe("locked");
    await c.unlock(code);
    expect([...c.held().epochs.keys()].sort()).toEqual([1, 2]);
    expect(await c.keys.sync()).toMatchObject({ state: "ready", epoch: 2 });
    expect(account.wraps.filter((w) => w.recipient_key_id === c.held().keyId).map((w) => [w.epoch, w.sender_key_id])).toEqual([
      [1, c.held().keyId],
      [2, c.held().keyId],
    ]);
  });

  it("a typo is caught by the check bits, another account's or a replaced code does not match, and none is none", async () => {
    const account = new MemoryAccount();
    const a = device(account, "s_a");
    await a.keys.sync();
    const b = device(account, "s_b");
    await b.keys.sync();
    expect(await refusal(b.unlock(await makeRecoveryCode()))).toBe("none");

    const code = await makeRecoveryCode();
    await a.makeCode(code);
    const chars = code.replace(/-/g, "");
    const typo = `${chars.slice(0, 5)}${chars[5] === "0" ? "1" : "0"}${chars.slice(6)}`;
    expect(await refusal(b.unlock(typo))).toBe("code:check");
    expect(await refusal(b.unlock(chars.slice(1)))).toBe("code:length");
    expect(await refusal(b.unlock(await makeRecoveryCode()))).toBe("mismatch");

    // Replacing the code: the old one no longer matches, the new one unlocks.
    const replaced = await makeRecoveryCode();
    await a.makeCode(replaced);
    expect(await refusal(b.unlock(code))).toBe("mismatch");
    expect(await refusal(b.unlock(replaced))).toBe("unlocked");
    expect(new RecoveryRefusedError("mismatch").message).toBe(RECOVERY_TEXT.mismatch);
  });

  it("refuses a recovery row the server changed, and does not follow a wrap from a key no opened roster lists", async () => {
    const account = new MemoryAccount();
    const a = device(account, "s_a");
    await a.keys.sync();
    const code = await makeRecoveryCode();
    await a.makeCode(code);
    const b = device(account, "s_b");
    await b.keys.sync();

    const row = account.roster.find((r) => r.kind === "recovery");
    if (!row) throw new Error("no recovery row");
    const tag = row.tag;
    row.tag = toBase64Url(new Uint8Array(32));
    expect(await refusal(b.unlock(code))).toBe("notVerified");
    row.tag = tag;

    // Epoch 2 appears wrapped for the recovery key by a key that no epoch the code opened lists: it stays closed.
    const intruder = await generateDeviceKeyPair();
    account.epoch = 2;
    const recovery = await deriveRecoveryKeys(code, userId);
    const forged = await wrapEpochKey(new Uint8Array(32).fill(7), { userId, epoch: 2 }, recovery.keyPair.publicKey, {
      mode: "auth",
      senderKeyPair: intruder,
    });
    account.wraps.push({
      epoch: 2,
      recipient_key_id: row.key_id,
      sender_key_id: await keyId(intruder.publicKey),
      mode: "auth",
      ...forged,
      created_at: 99,
    });
    expect(await refusal(b.unlock(code))).toBe("outdated");
    expect(b.held().epochs.size).toBe(0);
  });
});
