/**
 * Keyed devices for the terminal's tests of decision 020: a signed-in browser holding the account's epochs in memory,
 * with the same shared code the web app uses, and terminals it pairs by QR code so they hold the same epochs.
 */
import {
  API,
  deviceKeySchema,
  formatStoredDate,
  formatStoredTime,
  KEYS_API,
  type KeysState,
  keysStateSchema,
  PAIRING_API,
  type PairingRequestDetails,
  responseSchemas,
  type SealedFileType,
  sendSealedMessageSchema,
} from "@daysync/shared";
import {
  AccountKeys,
  createSealingSource,
  deriveEpochKeys,
  type EpochKeys,
  fromBase64Url,
  type HeldEpochs,
  type HeldKeys,
  makeHandover,
  memoryKeyStorage,
  readFrom,
  type Sealer,
  sealFileUpload,
  sealTextMessage,
  secretOfFragment,
} from "@daysync/shared/crypto";
import { expect } from "vitest";
import { deviceListServer } from "../../server/src/testing/key-devices.ts";
import { Device, type TestServer, textMessage } from "../../server/src/testing/test-server.ts";
import { b64, uploadFile } from "../../server/src/testing/tus-client.ts";
import { ConfigStore } from "../src/config-store.ts";
import { type CliProcess, Terminal } from "./cli-process.ts";
import { decodeTerminalQr } from "./terminal-qr.ts";

export interface KeyHolder {
  device: Device;
  userId: string;
  held: HeldKeys;
  /** Seals as this device, under the account's current epoch as it last synced. */
  sealer: Sealer;
  /** Syncs again (a rotation made elsewhere, or one due), and seals under the epoch it finds. */
  sync(): Promise<void>;
  keys: AccountKeys;
}

/** A newly registered account whose browser makes the account's first epoch and holds it, and signs its device list. */
export async function keyHolder(server: string, email: string): Promise<KeyHolder> {
  const device = new Device(server);
  const user = await device.register(email.split("@")[0] ?? "Someone", email);
  const storage = memoryKeyStorage(user.id);
  const keys = new AccountKeys(
    user.id,
    storage,
    {
      state: async () => keysStateSchema.parse((await device.get(KEYS_API.keys)).body),
      setDeviceKey: async (publicKey) =>
        void deviceKeySchema.parse((await device.request("PUT", KEYS_API.device, { public_key: publicKey })).body),
      createEpoch: async (body) => {
        const res = await device.post(KEYS_API.epochs, body);
        if (res.status === 201) return { ok: true, state: keysStateSchema.parse(res.body) };
        return { ok: false, code: responseSchemas.error.parse(res.body).error.code };
      },
    },
    deviceListServer(device),
  );
  const holder = { device, userId: user.id, keys } as KeyHolder;
  holder.sync = async () => {
    const status = await keys.sync();
    const current = status.state === "ready" ? status.keys.epochs.get(status.epoch) : undefined;
    if (status.state !== "ready" || !current) throw new Error(`the key holder is ${status.state}`);
    holder.held = status.keys;
    holder.sealer = { userId: user.id, sessionId: status.sessionId, epoch: status.epoch, keys: current };
  };
  await holder.sync();
  return holder;
}

/** Sends `content` sealed by the key holder, as the web app will; answers the stored message's id. */
export function sendSealed(holder: KeyHolder, content: string, now: number): Promise<string> {
  return postSealed(holder.device, holder.sealer, content, now);
}

/** Sends a file sealed by the key holder, as the web app does (one tus PATCH); answers the message's id. */
export async function sendSealedFile(holder: KeyHolder, name: string, bytes: Uint8Array, now: number, type: SealedFileType = "file") {
  const at = new Date(now);
  const id = crypto.randomUUID();
  const file = { id, date: formatStoredDate(at), time: formatStoredTime(at), name, type };
  const { metadata, fileKey } = await sealFileUpload(holder.sealer, file);
  const source = createSealingSource({
    fileKey,
    messageId: id,
    plainLength: bytes.length,
    read: readFrom(bytes),
  });
  const header = Object.entries(metadata)
    .map(([k, v]) => `${k} ${b64(v)}`)
    .join(",");
  await uploadFile(holder.device, await source.slice(0, source.size), header);
  return id;
}

/** A new terminal signed in by `daysync login` with the QR code, which the key holder approves with the handover. */
export async function pairedTerminal(server: string, holder: KeyHolder): Promise<Terminal> {
  const terminal = new Terminal(server);
  const cli: CliProcess = terminal.spawn(["login"]);
  await cli.waitFor(/Code: ([0-9A-Z]{4}-[0-9A-Z]{4})/, { timeoutMs: 30_000 });
  const url = new URL(decodeTerminalQr(cli.stdout) ?? "");
  const code = url.pathname.split("/").pop() ?? "";
  const secret = secretOfFragment(url.hash) ?? "";
  const { request } = (await holder.device.get<{ request: PairingRequestDetails }>(PAIRING_API.request(code))).body;
  const state = (await holder.device.get<KeysState>(KEYS_API.keys)).body;
  const handover = await makeHandover({
    userId: holder.userId,
    held: holder.held,
    state,
    secret,
    requestId: request.request_id,
    publicKey: request.public_key ?? "",
  });
  expect((await holder.device.post(PAIRING_API.approve(code), { handover })).status).toBe(204);
  expect(await cli.exited, cli.stderr).toBe(0);
  return terminal;
}

/** The epochs a terminal keeps in its keys.json, as its commands open them. */
export async function terminalEpochs(terminal: Terminal): Promise<HeldEpochs> {
  const stored = new ConfigStore(terminal.configDir).keys(terminal.server);
  const epochs = new Map<number, EpochKeys>();
  for (const [n, key] of Object.entries(stored?.epochs ?? {}))
    epochs.set(Number(n), await deriveEpochKeys(fromBase64Url(key), stored?.user_id ?? ""));
  return epochs;
}

/**
 * A sealer for `device`, a signed-in device of the terminal's account, with the terminal's current epoch: what that
 * device would seal with once handed the key (the terminal approves no device itself).
 */
export async function sealerBeside(device: Device, terminal: Terminal): Promise<Sealer> {
  const state = keysStateSchema.parse((await device.get(KEYS_API.keys)).body);
  const keys = (await terminalEpochs(terminal)).get(state.epoch ?? 0);
  if (!keys || state.epoch === null) throw new Error("the terminal holds no key of the current epoch");
  return {
    userId: new ConfigStore(terminal.configDir).keys(terminal.server)?.user_id ?? "",
    sessionId: state.session_id,
    epoch: state.epoch,
    keys,
  };
}

/** Sends `content` sealed with `sealer` from `device`; answers the stored message's id. */
export async function postSealed(device: Device, sealer: Sealer, content: string, now: number): Promise<string> {
  const body = sendSealedMessageSchema.parse(await sealTextMessage(sealer, textMessage(content, now)));
  const res = await device.post(API.messages, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return body.id;
}

/** Sends `content` from the setup's browser, sealed as it would be once handed the key: another device of the account. */
export async function sendFromBrowser(setup: { browser: Device; terminal: Terminal }, content: string, now: number): Promise<string> {
  return postSealed(setup.browser, await sealerBeside(setup.browser, setup.terminal), content, now);
}

/**
 * A text the server kept in clear from before the account had a key (an installation upgraded in place): sent while
 * the account's key is set aside, since the server refuses text in clear once there is one.
 */
export async function keptInClear(server: TestServer, device: Device, content: string, now: number): Promise<string> {
  const userId = responseSchemas.user.parse((await device.get(API.me)).body).user.id;
  const { key_epoch } = await server.db.selectFrom("users").select("key_epoch").where("id", "=", userId).executeTakeFirstOrThrow();
  await server.db.updateTable("users").set({ key_epoch: null }).where("id", "=", userId).execute();
  try {
    const message = textMessage(content, now);
    expect((await device.post(API.messages, message)).status).toBe(201);
    return message.id;
  } finally {
    await server.db.updateTable("users").set({ key_epoch }).where("id", "=", userId).execute();
  }
}
