/**
 * A device of the account that runs in the test's own process, over real HTTP with its own session: it holds keys
 * (the shared crypto library, kept in memory), so it can seal messages and approve a browser by typed code as any
 * other of the person's devices would, while the browser under test shows what it does.
 */
import {
  API,
  DEVICES_API,
  deviceKeySchema,
  formatStoredDate,
  formatStoredTime,
  KEYS_API,
  type KeyRequest,
  keysStateSchema,
  type Message,
  PAIRING_API,
  PUSH_API,
  responseSchemas,
  type SealedFileType,
} from "@daysync/shared";
import {
  AccountKeys,
  type ApprovalStep,
  createSealingSource,
  type KeyApprovalServer,
  KeyApprover,
  makeHandover,
  memoryKeyStorage,
  memorySendNumbers,
  type Opened,
  openFileMessage,
  openMessage,
  openRecordStream,
  readFrom,
  type Sealer,
  SendNumbering,
  type SendNumbersStore,
  sealFileUpload,
  sealTextMessage,
  secretOfFragment,
} from "@daysync/shared/crypto";
import { type APIRequestContext, type Browser, type Page, request } from "playwright-core";
import { expect } from "vitest";
import { type Device, newDevice, PASSWORD, signInViaApi } from "./daysync.ts";

export class NodeDevice {
  private constructor(
    private readonly http: APIRequestContext,
    readonly userId: string,
    readonly email: string,
    private readonly keys: AccountKeys,
    private readonly storage: ReturnType<typeof memoryKeyStorage>,
  ) {}

  /** Registers the account from this device: the first device, so it makes the account's first key. */
  static async register(baseURL: string, name: string, email: string): Promise<NodeDevice> {
    const http = await request.newContext({ baseURL });
    const res = await http.post(API.register, { data: { name, email, password: PASSWORD, confirm_password: PASSWORD } });
    expect(res.status()).toBe(201);
    const userId = responseSchemas.user.parse(await res.json()).user.id;
    const storage = memoryKeyStorage(userId);
    const device = new NodeDevice(http, userId, email, new AccountKeys(userId, storage, server(http)), storage);
    expect((await device.sync()).state).toBe("ready");
    return device;
  }

  sync() {
    return this.keys.sync();
  }

  private async sealer(): Promise<Sealer> {
    const status = await this.sync();
    const epochKeys = status.state === "ready" ? status.keys.epochs.get(status.epoch) : undefined;
    if (status.state !== "ready" || !epochKeys) throw new Error(`This device cannot seal: ${status.state}`);
    const sealer = { userId: this.userId, sessionId: status.sessionId, epoch: status.epoch, keys: epochKeys };
    if (!this.numbers) return sealer;
    this.numbering ??= new SendNumbering(status.keys.keyId, this.numbers);
    return { ...sealer, numbering: this.numbering };
  }

  private numbers: SendNumbersStore | undefined;
  private numbering: SendNumbering | undefined;

  /** From now on this device numbers what it sends, as the apps do, and goes by `name` (docs/protocol/encryption.md). */
  async numberAs(name: string): Promise<void> {
    this.numbers = memorySendNumbers();
    const { session_id } = keysStateSchema.parse(await (await this.http.get(KEYS_API.keys)).json());
    expect((await this.http.patch(DEVICES_API.one(session_id), { data: { name } })).status()).toBe(200);
  }

  /** Seals a text as this device's outbox would and sends it; the stored message. */
  async sendSealed(text: string, at = new Date()): Promise<Message> {
    const sealer = await this.sealer();
    const body = await sealTextMessage(sealer, {
      id: crypto.randomUUID(),
      date: formatStoredDate(at),
      time: formatStoredTime(at),
      content: text,
    });
    const res = await this.http.post(API.messages, { data: body });
    expect(res.status()).toBe(201);
    await sealer.numbering?.stored(body.id);
    return responseSchemas.message.parse(await res.json()).message;
  }

  /**
   * Seals a file as this device would (docs/protocol/encryption.md, "File records") and uploads it over tus, in one PATCH: its name,
   * preview and key sealed under the current epoch, its bytes as records under the key. The stored message.
   */
  async sendSealedFile(name: string, type: SealedFileType, data: Uint8Array, at = new Date()): Promise<Message> {
    const sealer = await this.sealer();
    const id = crypto.randomUUID();
    const file = { id, date: formatStoredDate(at), time: formatStoredTime(at), name, type };
    const { metadata, fileKey } = await sealFileUpload(sealer, file);
    const source = createSealingSource({
      fileKey,
      messageId: id,
      plainLength: data.length,
      read: readFrom(data),
    });
    const sealed = await source.slice(0, source.size);
    const created = await this.http.post(API.uploads, {
      headers: {
        "Tus-Resumable": "1.0.0",
        "Upload-Length": String(source.size),
        "Upload-Metadata": Object.entries(metadata)
          .map(([k, v]) => `${k} ${Buffer.from(v).toString("base64")}`)
          .join(","),
      },
    });
    const location = created.headers().location;
    if (created.status() !== 201 || !location) throw new Error(`Creating the upload answered ${created.status()}: ${await created.text()}`);
    const sent = await this.http.patch(location, {
      headers: { "Tus-Resumable": "1.0.0", "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream" },
      data: Buffer.from(sealed),
    });
    if (sent.status() !== 204) throw new Error(`Sending the upload answered ${sent.status()}: ${await sent.text()}`);
    return until(async () => {
      const res = await this.http.get(`${API.messages}?limit=200`);
      return responseSchemas.messagesPage.parse(await res.json()).messages.find((m) => m.id === id);
    });
  }

  /** Signs this device out: it held the key, so the account's devices move to a new one. */
  async signOut(): Promise<void> {
    const res = await this.http.post(API.logout);
    if (!res.ok()) throw new Error(`Signing out answered ${res.status()}: ${await res.text()}`);
  }

  /** Deletes one of the account's messages for good, as its Delete does. */
  async deleteMessage(id: string): Promise<void> {
    const res = await this.http.delete(API.message(id));
    if (!res.ok()) throw new Error(`Deleting answered ${res.status()}: ${await res.text()}`);
  }

  /** The ids of the account's live messages, newest first. */
  async messageIds(): Promise<string[]> {
    const res = await this.http.get(`${API.messages}?limit=200`);
    return responseSchemas.messagesPage.parse(await res.json()).messages.map((m) => m.id);
  }

  /** The message with this id as the server keeps it, and what this device opens of it. */
  async open(id: string): Promise<{ stored: Message; opened: Opened }> {
    await this.sync();
    const res = await this.http.get(`${API.messages}?limit=200`);
    const stored = responseSchemas.messagesPage.parse(await res.json()).messages.find((m) => m.id === id);
    if (!stored) throw new Error(`The server has no message ${id}`);
    return { stored, opened: await openMessage(this.userId, this.storage.held?.epochs ?? new Map(), stored) };
  }

  /**
   * A sealed file message: downloads its bytes from the server and opens them as any device showing it would (its key
   * from the message, then each record while the bytes stream); its name and bytes. Throws if anything does not open.
   */
  async openFile(id: string): Promise<{ stored: Message; name: string; bytes: Buffer }> {
    const { stored, opened } = await this.open(id);
    if (opened.state !== "opened") throw new Error(`The name of file ${id} does not open: ${opened.state}`);
    const file = await openFileMessage(this.userId, this.storage.held?.epochs ?? new Map(), stored);
    if (file.state !== "opened") throw new Error(`The key of file ${id} does not open: ${file.state}`);
    const res = await this.http.get(stored.file_url);
    if (!res.ok()) throw new Error(`Downloading ${stored.file_url} answered ${res.status()}`);
    const sealed = await res.body();
    const plain = new Blob([new Uint8Array(sealed)]).stream().pipeThrough(openRecordStream(file.fileKey, id, sealed.length));
    return { stored, name: opened.text, bytes: Buffer.from(await new Response(plain).arrayBuffer()) };
  }

  /**
   * Types `code` for the account's newest pending request (a locked device asked and shows a code), as a person does
   * in the field "Code shown on the new device" and Approve; once the asking device confirmed the code, hands the key
   * over. The step it ended on: `confirmed` when handed over, else a wrong code or an ended request.
   */
  async typeCode(code: string): Promise<ApprovalStep> {
    const held = this.storage.held;
    if (!held) throw new Error("No keys yet");
    // The newest pending request: a page that loads again asks again, which ends its earlier request (410 to an answer).
    const { approver, asked, first } = await until(async () => {
      const pending = (await this.requests()).filter((r) => r.status === "pending").sort((a, b) => b.created_at - a.created_at)[0];
      if (!pending) return undefined;
      const side = new KeyApprover(this.userId, held, server(this.http));
      return side.answer(pending, code).then(
        (step) => ({ approver: side, asked: pending, first: step }),
        (error: unknown) => {
          if (String(error).includes(" answered 410:")) return undefined;
          throw error;
        },
      );
    }, REQUESTS_POLL_MS);
    const step =
      first.step !== "waiting"
        ? first
        : await until(async () => {
            const now = (await this.requests()).find((r) => r.id === asked.id);
            // Gone from the list: ended (denied, expired or failed).
            const next = now ? await approver.update(now) : ({ step: "ended", status: "failed" } as const);
            return next.step === "waiting" ? undefined : next;
          }, REQUESTS_POLL_MS);
    if (step.step === "confirmed") await approver.approve();
    return step;
  }

  /** Approves the browser on `page` as the person does: reads the code it shows and types it here. */
  async approveByCheckCode(page: Page): Promise<void> {
    const shown = page.locator(".key-approval-code");
    await shown.waitFor({ state: "visible", timeout: 30_000 });
    const code = (await shown.textContent()) ?? "";
    const step = await this.typeCode(code);
    if (step.step !== "confirmed") throw new Error(`Typing the code ${code} ended on ${JSON.stringify(step)}`);
  }

  /**
   * Approves the device that shows the QR link `link` (`daysync login`, the login panel), handing it the key as
   * scanning that code and pressing Approve does.
   */
  async approvePairing(link: string): Promise<void> {
    const held = this.storage.held;
    if (!held) throw new Error("No keys yet");
    const url = new URL(link);
    const code = url.pathname.split("/").pop() ?? "";
    const { request } = responseSchemas.pairingDetails.parse(await (await this.http.get(PAIRING_API.request(code))).json());
    const state = keysStateSchema.parse(await (await this.http.get(KEYS_API.keys)).json());
    const secret = secretOfFragment(url.hash);
    if (!secret || !request.public_key) throw new Error("The QR link carries no secret, or the request no key");
    const handover = await makeHandover({
      userId: this.userId,
      held,
      state,
      secret,
      requestId: request.request_id,
      publicKey: request.public_key,
    });
    const res = await this.http.post(PAIRING_API.approve(code), { data: { handover } });
    if (res.status() !== 204) throw new Error(`Approving the pairing answered ${res.status()}: ${await res.text()}`);
  }

  /** Add a device: an offer whose code a new device opens (`joinLink`). */
  async offerDevice() {
    const res = await this.http.post(PAIRING_API.offers);
    if (res.status() !== 201) throw new Error(`Offering answered ${res.status()}: ${await res.text()}`);
    return responseSchemas.pairingOffer.parse(await res.json());
  }

  /** Keeps a push subscription for this device's session, as its service worker would. */
  async subscribePush(endpoint: string, keys: { p256dh: string; auth: string }): Promise<void> {
    const res = await this.http.post(PUSH_API.subscriptions, { data: { endpoint, expirationTime: null, keys } });
    if (res.status() !== 201) throw new Error(`Subscribing answered ${res.status()}: ${await res.text()}`);
  }

  private async requests(): Promise<KeyRequest[]> {
    const res = await this.http.get(KEYS_API.requests);
    if (!res.ok()) throw new Error(`Listing key requests answered ${res.status()}: ${await res.text()}`);
    return responseSchemas.keyRequests.parse(await res.json()).requests;
  }

  dispose() {
    return this.http.dispose();
  }
}

/**
 * How often the key requests are polled: the server lets a session list them 60 times a minute, and a test file that
 * approves two devices within a minute went over that at every 100 ms (the web app and the CLI hear them live).
 */
const REQUESTS_POLL_MS = 500;

/** What `find` finds within 15 s, polled every `everyMs` (not expect.poll, which refuses to run in beforeAll). */
async function until<T>(find: () => Promise<T | undefined>, everyMs = 100, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error("Timed out waiting for the server");
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** The key routes, as the web app and the CLI reach them. */
function server(http: APIRequestContext): ConstructorParameters<typeof AccountKeys>[2] & KeyApprovalServer {
  const json = async (res: Awaited<ReturnType<APIRequestContext["get"]>>) => {
    if (!res.ok()) throw new Error(`${res.url()} answered ${res.status()}: ${await res.text()}`);
    return res.json();
  };
  const keyRequest = async (res: Awaited<ReturnType<APIRequestContext["get"]>>) =>
    responseSchemas.keyRequest.parse(await json(res)).request;
  return {
    state: async () => keysStateSchema.parse(await json(await http.get(KEYS_API.keys))),
    setDeviceKey: async (publicKey) => {
      deviceKeySchema.parse(await json(await http.put(KEYS_API.device, { data: { public_key: publicKey } })));
    },
    createEpoch: async (body) => {
      const res = await http.post(KEYS_API.epochs, { data: body });
      if (res.status() === 409) return { ok: false, code: responseSchemas.error.parse(await res.json()).error.code };
      return { ok: true, state: keysStateSchema.parse(await json(res)) };
    },
    ask: async (share) => keyRequest(await http.post(KEYS_API.requests, { data: { requester_share: share } })),
    answer: async (id, body) => keyRequest(await http.post(KEYS_API.answer(id), { data: body })),
    confirm: async (id, confirmation) =>
      keyRequest(await http.post(KEYS_API.confirm(id), { data: { requester_confirmation: confirmation } })),
    reject: async (id) => keyRequest(await http.post(KEYS_API.reject(id))),
    approve: async (id, body) => keyRequest(await http.post(KEYS_API.approve(id), { data: body })),
    deny: async (id) => keyRequest(await http.post(KEYS_API.deny(id))),
  };
}

/**
 * A new account whose first device, `phone`, runs here and holds the key, and a browser device, `laptop`, signed in
 * to it by password: locked until `phone.approveByCheckCode(laptop.page)`. No page is open yet.
 */
export async function keyedAccount(browser: Browser, baseURL: string, name: string, email: string) {
  const phone = await NodeDevice.register(baseURL, name, email);
  const laptop: Device = await newDevice(browser, baseURL);
  await signInViaApi(laptop, baseURL, email);
  return { phone, laptop };
}
