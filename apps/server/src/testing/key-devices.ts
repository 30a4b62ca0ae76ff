/**
 * A test device's hold on its account's keys, as the web app and the CLI have it: its keys in memory (IndexedDB or
 * keys.json there), AccountKeys and the recovery code's two uses from the crypto library, over real HTTP.
 */
import {
  DEVICE_LIST_API,
  type DeviceList,
  deviceListSchema,
  KEYS_API,
  type KeysState,
  keysStateSchema,
  recoveryStateSchema,
  responseSchemas,
} from "@daysync/shared";
import {
  AccountKeys,
  type DeviceListServer,
  type HeldKeys,
  type KeysServer,
  makeRecoveryCode,
  makeRecoveryKit,
  memoryKeyStorage,
  type RecoveryServer,
  recoveryMember,
  unlockWithRecoveryCode,
} from "@daysync/shared/crypto";
import { expect } from "vitest";
import { person } from "./discussion-api.ts";
import { type ApiResponse, Device, type TestServer } from "./test-server.ts";

/** An answer the test did not expect, with its status and body in the message. */
export class UnexpectedAnswer extends Error {
  constructor(readonly answer: ApiResponse) {
    super(`${answer.status} ${JSON.stringify(answer.body)}`);
  }
}

function ok(answer: ApiResponse, status = 200): unknown {
  if (answer.status !== status) throw new UnexpectedAnswer(answer);
  return answer.body;
}

/** The account's keys as this device's session sees them (GET /api/keys). */
export const keysOf = async (device: Device) => keysStateSchema.parse(ok(await device.get(KEYS_API.keys)));

/** The account's recovery code as the server keeps it (GET /api/keys/recovery), or null when it has none. */
export const recoveryOf = async (device: Device) => recoveryStateSchema.parse(ok(await device.get(KEYS_API.recovery))).recovery;

/** The recovery routes and the key state, over this device's session. */
export function recoveryServer(device: Device): RecoveryServer {
  return {
    state: async () => keysStateSchema.parse(ok(await device.get(KEYS_API.keys))),
    recovery: async () => recoveryStateSchema.parse(ok(await device.get(KEYS_API.recovery))),
    save: async (body) => recoveryStateSchema.parse(ok(await device.request("PUT", KEYS_API.recovery, body))),
    unlock: async (body) => keysStateSchema.parse(ok(await device.post(KEYS_API.recoveryUnlock, body))),
  };
}

/** The signed device list's routes over this device's session; `forge` rewrites each list the device reads. */
export function deviceListServer(device: Device, forge: (list: DeviceList) => DeviceList = (list) => list): DeviceListServer {
  return {
    read: async () => forge(deviceListSchema.parse(ok(await device.get(DEVICE_LIST_API.list)))),
    async append(entry) {
      const res = await device.post(DEVICE_LIST_API.append, { entry });
      if (res.status === 201) return { ok: true, list: forge(deviceListSchema.parse(res.body)) };
      return { ok: false, code: responseSchemas.error.parse(res.body).error.code };
    },
    async setSigningKey(signingKey) {
      ok(await device.request("PUT", DEVICE_LIST_API.signingKey, { signing_key: signingKey }), 204);
    },
  };
}

/**
 * A test device over real HTTP. `forge`, when given, plays a malicious server: every key state the device reads
 * (GET /api/keys, and the answer to a new epoch) passes through it first, so a test rewrites what the real server
 * said; `forgeList` does the same for the signed device list.
 */
export function keyDevice(
  device: Device,
  userId: string,
  options: {
    forge?: (state: KeysState) => KeysState | Promise<KeysState>;
    forgeList?: (list: DeviceList) => DeviceList;
    legacy?: boolean;
  } = {},
) {
  const forged = async (state: KeysState) => (options.forge ? options.forge(state) : state);
  const storage = memoryKeyStorage(userId);
  const honest = recoveryServer(device);
  const recovery: RecoveryServer = { ...honest, state: async () => forged(await honest.state()) };
  const keysServer: KeysServer = {
    state: recovery.state,
    setDeviceKey: async (publicKey) => {
      ok(await device.request("PUT", KEYS_API.device, { public_key: publicKey }));
    },
    createEpoch: async (body) => {
      const res = await device.post(KEYS_API.epochs, body);
      if (res.status === 201) return { ok: true, state: await forged(keysStateSchema.parse(res.body)) };
      return { ok: false, code: responseSchemas.error.parse(res.body).error.code };
    },
  };
  const withList = () => new AccountKeys(userId, storage, keysServer, deviceListServer(device, options.forgeList));
  // A device running the code from before the signed device list: the same key calls, and no list at all.
  const keys = options.legacy ? new AccountKeys(userId, storage, keysServer) : withList();
  const mine = (): HeldKeys => {
    if (!storage.held) throw new Error("no keys yet");
    return storage.held;
  };
  return {
    device,
    keys,
    /** The same device's keys after it runs the code with the signed device list (a `legacy` device's upgrade). */
    upgraded: withList,
    held: mine,
    /** The body of PUT /api/keys/recovery for `code`, made from what this device holds now. */
    kit: async (code: string) => makeRecoveryKit(userId, mine(), await recovery.state(), code),
    /** Saves `code` as the clients do: the kit, then the recovery key into the signed device list. */
    makeCode: async (code: string) => {
      const saved = await recovery.save(await makeRecoveryKit(userId, mine(), await recovery.state(), code));
      await keys.recoveryChanged(await recoveryMember(userId, code));
      return saved;
    },
    /** Unlocks with `typed` as the clients do: the epochs, then this device into the list, signed by the recovery key. */
    unlock: async (typed: string) => keys.joinListWithRecovery(await unlockWithRecoveryCode(userId, mine(), storage, recovery, typed)),
  };
}
export type KeyDevice = ReturnType<typeof keyDevice>;

/** A new account whose first device holds epoch 1; `signIn` adds a device of it signed in by password, locked. */
export async function keyedAccount(server: Pick<TestServer, "url">, name: string) {
  const { device, user, email } = await person(server, name);
  const keyed = keyDevice(device, user.id);
  expect((await keyed.keys.sync()).state).toBe("ready");
  const signIn = async () => {
    const fresh = new Device(server.url);
    await fresh.login(email);
    const locked = keyDevice(fresh, user.id);
    expect((await locked.keys.sync()).state).toBe("locked");
    return locked;
  };
  return { keyed, signIn, user, email };
}

type Who = "a" | "b" | "c";

/**
 * An account whose devices A, B and C all hold epoch 1 (B and C unlocked with the recovery code A made). Each device's
 * key state and device list pass through `forgeKeys[who]` and `forgeList[who]` when a test sets them: the server
 * turning hostile.
 */
export async function threeKeyedDevices(server: TestServer, name: string) {
  const { device, user, email } = await person(server, name);
  const forgeKeys: Record<Who, ((state: KeysState) => KeysState | Promise<KeysState>) | undefined> = {
    a: undefined,
    b: undefined,
    c: undefined,
  };
  const forgeList: Record<Who, ((list: DeviceList) => DeviceList) | undefined> = { a: undefined, b: undefined, c: undefined };
  const through = (who: Who) => ({
    forge: (state: KeysState) => forgeKeys[who]?.(state) ?? state,
    forgeList: (list: DeviceList) => forgeList[who]?.(list) ?? list,
  });
  const a = keyDevice(device, user.id, through("a"));
  expect((await a.keys.sync()).state).toBe("ready");
  const code = await makeRecoveryCode();
  await a.makeCode(code);
  const signIn = async (who: "b" | "c") => {
    const fresh = new Device(server.url);
    await fresh.login(email);
    const keyed = keyDevice(fresh, user.id, through(who));
    expect((await keyed.keys.sync()).state).toBe("locked");
    await keyed.unlock(code);
    expect(await keyed.keys.sync()).toMatchObject({ state: "ready", epoch: 1 });
    return keyed;
  };
  const b = await signIn("b");
  const c = await signIn("c");
  return { a, b, c, user, code, forgeKeys, forgeList };
}
