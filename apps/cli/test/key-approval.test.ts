/**
 * The typed-code approval (docs/protocol/encryption.md, "Approving a device"), both sides as the shared library runs
 * them (KeyRequester, KeyApprover), each over its own keys.json and its own session against a real server: the code
 * the terminal shows typed on the other device, a wrong code, Deny and No, and `daysync login`'s terminal side.
 */
import { API, APPROVAL_TEXT, responseSchemas } from "@daysync/shared";
import { KeyApprover, KeyRequester, type KeyStatus } from "@daysync/shared/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../server/src/testing/test-server.ts";
import { ApiClient, sessionTokenOf } from "../src/api-client.ts";
import { ConfigStore } from "../src/config-store.ts";
import { fileKeys } from "../src/sealing/account-keys.ts";
import { LOCKED_TERMINAL, waitForKeyApproval } from "../src/sealing/key-approval.ts";
import { removeTempDirs, tempDir } from "./cli-process.ts";
import { PASSWORD, registerBrowser } from "./sign-in.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ LOGIN_RATE_LIMIT_MAX: "1000" });
});
afterAll(async () => {
  await server.close();
  await removeTempDirs();
});

/** A device signed in by password with its own keys.json, synced: the first one makes epoch 1, later ones are locked. */
async function device(email: string) {
  const anonymous = new ApiClient(server.url, null);
  const { body, res } = await anonymous.json("POST", API.login, responseSchemas.user, { email, password: PASSWORD });
  const api = new ApiClient(server.url, sessionTokenOf(res) ?? null);
  const store = new ConfigStore(tempDir("keys"));
  const parts = fileKeys(api, store, server.url, body.user.id);
  const status = await parts.keys.sync();
  if (status.state === "lost") throw new Error("lost");
  return { ...parts, userId: body.user.id, status: status as Exclude<KeyStatus, { state: "lost" }>, store };
}
type TestDevice = Awaited<ReturnType<typeof device>>;

async function pair(email: string) {
  await registerBrowser(server.url, email);
  const phone = await device(email);
  const laptop = await device(email);
  expect([phone.status.state, laptop.status.state]).toEqual(["ready", "locked"]);
  return { phone, laptop };
}

/** The laptop asks and shows its code; the phone answers with `typed` (the right code unless given). */
async function typeCode(phone: TestDevice, laptop: TestDevice, typed?: string) {
  const requester = new KeyRequester(laptop.userId, laptop.status.keys, laptop.storage, laptop.approval);
  const asked = await requester.ask();
  const [seen] = await phone.approval.requests();
  expect(seen?.id).toBe(asked.id);
  const approver = new KeyApprover(phone.userId, phone.status.keys, phone.approval);
  const answered = await approver.answer(seen ?? asked, typed ?? requester.code);
  expect(answered).toEqual({ step: "waiting" });
  const latest = async (device: TestDevice) => (await device.approval.requests()).find((r) => r.id === asked.id) ?? asked;
  const requesterStep = await requester.update(await latest(laptop));
  const approverStep = await approver.update(await latest(phone));
  return { requester, approver, requesterStep, approverStep, latest };
}

describe("approval by a typed code", () => {
  it("the code the laptop shows, typed on the phone: both confirm, and the laptop holds the account's key", async () => {
    const { phone, laptop } = await pair("ada@example.com");
    const { requester, approver, requesterStep, approverStep, latest } = await typeCode(phone, laptop);
    expect(requester.code).toMatch(/^\d{3} \d{3}$/);
    expect([requesterStep, approverStep]).toEqual([{ step: "confirmed" }, { step: "confirmed" }]);

    const approved = await approver.approve();
    expect(approved.status).toBe("approved");
    expect(laptop.store.keys(server.url)?.epochs).toEqual({});
    expect(await requester.accept(await latest(laptop))).toBe(true);
    expect(Object.keys(laptop.store.keys(server.url)?.epochs ?? {})).toEqual(["1"]);
    // The chain rule now holds on its own: a fresh sync reads the approver's wrap as trusted.
    expect((await laptop.keys.sync()).state).toBe("ready");
    const state = await laptop.approval.state();
    expect(state.wraps).toMatchObject([{ epoch: 1, sender_key_id: phone.status.keys.keyId, mode: "auth" }]);
    expect(state.other_devices_with_current_key).toBe(1);
  });

  it("a wrong code is one try: the phone may type again, and the right code then works", async () => {
    const { phone, laptop } = await pair("wen@example.com");
    const wrong = (code: string) => (code === "000 000" ? "000 001" : "000 000");
    const laptopSide = new KeyRequester(laptop.userId, laptop.status.keys, laptop.storage, laptop.approval);
    const asked = await laptopSide.ask();
    const phoneSide = new KeyApprover(phone.userId, phone.status.keys, phone.approval);
    await phoneSide.answer(asked, wrong(laptopSide.code));
    const current = async () => (await laptop.approval.requests()).find((r) => r.id === asked.id) ?? asked;
    expect(await laptopSide.update(await current())).toEqual({ step: "show", code: laptopSide.code, wrongCodes: 1 });
    expect(await phoneSide.update(await current())).toEqual({ step: "wrong_code", wrongCodes: 1, left: 2 });
    await phoneSide.answer(await current(), laptopSide.code);
    expect(await laptopSide.update(await current())).toEqual({ step: "confirmed" });
    expect(await phoneSide.update(await current())).toEqual({ step: "confirmed" });
  });

  it("Deny on the approving device ends it on the asking one", async () => {
    const { phone, laptop } = await pair("bea@example.com");
    const { requester, approver } = await typeCode(phone, laptop);
    const denied = await approver.deny();
    expect(await requester.update(denied)).toEqual({ step: "ended", status: "denied" });
    expect(await laptop.approval.requests()).toEqual([]);
    await expect(requester.accept(denied)).rejects.toThrow();
  });

  it("No on the asking device, even after the approval, keeps nothing and takes the handover back", async () => {
    const { phone, laptop } = await pair("dot@example.com");
    const { requester, approver } = await typeCode(phone, laptop);
    await approver.approve();
    await requester.refuse();
    expect((await laptop.approval.state()).wraps).toEqual([]);
    expect((await laptop.keys.sync()).state).toBe("locked");
    expect(laptop.store.keys(server.url)?.epochs).toEqual({});
  });
});

describe("daysync login on a locked account", () => {
  /** The phone's side, as a person would work it: the codes read off the terminal typed in turn, then the handover. */
  async function phoneTypes(phone: TestDevice, codes: () => string[]) {
    type Request = Awaited<ReturnType<typeof phone.approval.requests>>[number];
    /** The first request that passes, or undefined once `gone` (it left the list: ended). */
    const find = async (test: (r: Request) => boolean, gone?: string): Promise<Request | undefined> => {
      for (;;) {
        const list = await phone.approval.requests();
        const found = list.find(test);
        if (found) return found;
        if (gone && !list.some((r) => r.id === gone)) return undefined;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const approver = new KeyApprover(phone.userId, phone.status.keys, phone.approval);
    const asked = await find((r) => r.status === "pending");
    if (!asked) return undefined;
    let request = asked;
    for (const code of codes()) {
      await approver.answer(request, code);
      const next = await find((r) => r.id === asked.id && r.status !== "answered", asked.id);
      if (!next) return undefined;
      request = next;
      const step = await approver.update(request);
      if (step.step === "confirmed") return approver.approve();
      if (step.step === "ended") return undefined;
    }
    return undefined;
  }

  /** The code the terminal printed. */
  const shownCode = (lines: string[]) => lines.find((l) => l.startsWith(APPROVAL_TEXT.typeThisCode))?.slice(-7) ?? "";

  it("shows the code to type on another device, and keeps the key once it was typed", async () => {
    const { phone, laptop } = await pair("eve@example.com");
    const lines: string[] = [];
    const waiting = waitForKeyApproval(laptop, laptop.userId, laptop.status.keys, { log: (line) => lines.push(line), pollMs: 50 });
    const approving = phoneTypes(phone, () => [shownCode(lines)]);
    await waiting;
    await approving;
    expect(lines[0]).toMatch(/^Type this code on one of your other devices: \d{3} \d{3}$/);
    expect(lines).toContain(APPROVAL_TEXT.waitingForHandover);
    expect(lines.at(-1)).toBe("This terminal can now read your messages.");
    expect(Object.keys(laptop.store.keys(server.url)?.epochs ?? {})).toEqual(["1"]);
    expect(LOCKED_TERMINAL).toBe("Signed in, but this terminal cannot read yet.");
  });

  it("a wrong code three times ends the request and keeps nothing", async () => {
    const { phone, laptop } = await pair("fay@example.com");
    const lines: string[] = [];
    const waiting = waitForKeyApproval(laptop, laptop.userId, laptop.status.keys, { log: (line) => lines.push(line), pollMs: 50 });
    const wrong = () => (shownCode(lines) === "000 000" ? "111 111" : "000 000");
    const approving = phoneTypes(phone, () => [wrong(), wrong(), wrong()]);
    await expect(waiting).rejects.toThrow("A wrong code was typed three times, so the request ended.");
    await approving;
    expect(lines.filter((l) => l.startsWith("A wrong code was typed on your other device"))).toHaveLength(2);
    expect(laptop.store.keys(server.url)?.epochs).toEqual({});
    expect((await laptop.approval.state()).wraps).toEqual([]);
    expect(await laptop.approval.requests()).toEqual([]);
  });
});
