/**
 * The check-code protocol of decision 020, section 4.2, both sides as the shared library runs them (KeyRequester,
 * KeyApprover), each over its own keys.json and its own session against a real server: the same code on both
 * screens, the handover opened only after Yes, Deny and No, and a reveal that does not match its commitment.
 */
import { API, responseSchemas } from "@daysync/shared";
import { KeyApprover, KeyRequester, type KeyStatus } from "@daysync/shared/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../server/src/testing/test-server.ts";
import { fileKeys } from "../src/account-keys.ts";
import { ApiClient, sessionTokenOf } from "../src/api-client.ts";
import { ConfigStore } from "../src/config-store.ts";
import { LOCKED_TERMINAL, waitForKeyApproval } from "../src/key-approval.ts";
import { removeTempDirs, tempDir } from "./cli-process.ts";
import { PASSWORD, registerBrowser } from "./sign-in.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ LOGIN_RATE_LIMIT_MAX: "1000" });
});
afterAll(async () => {
  await server.close();
  removeTempDirs();
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

/** The laptop asks, the phone compares codes, the laptop reveals: both codes. */
async function compare(phone: TestDevice, laptop: TestDevice) {
  const requester = new KeyRequester(laptop.userId, laptop.status.keys, laptop.storage, laptop.approval);
  const asked = await requester.ask();
  const [seen] = await phone.approval.requests();
  expect(seen?.id).toBe(asked.id);
  const approver = new KeyApprover(phone.userId, phone.status.keys, phone.approval);
  const answered = await approver.compare(seen ?? asked);
  const requesterStep = await requester.update(answered);
  const [revealed] = await phone.approval.requests();
  expect(revealed?.status).toBe("revealed");
  const approverStep = await approver.update(revealed ?? answered);
  return { requester, approver, requesterStep, approverStep };
}

describe("approval by check code", () => {
  it("shows the same six digits on both devices; after Approve and Yes the laptop holds the account's key", async () => {
    const { phone, laptop } = await pair("ada@example.com");
    const { requester, approver, requesterStep, approverStep } = await compare(phone, laptop);
    expect(requesterStep).toEqual({ step: "compare", code: expect.stringMatching(/^\d{3} \d{3}$/) });
    expect(approverStep).toEqual(requesterStep);

    const approved = await approver.approve();
    expect(approved.status).toBe("approved");
    // Nothing is kept before the person says Yes.
    expect(laptop.store.keys(server.url)?.epochs).toEqual({});
    expect(await requester.accept(approved)).toBe(true);
    expect(Object.keys(laptop.store.keys(server.url)?.epochs ?? {})).toEqual(["1"]);
    // The chain rule now holds on its own: a fresh sync reads the approver's wrap as trusted.
    expect((await laptop.keys.sync()).state).toBe("ready");
    const state = await laptop.approval.state();
    expect(state.wraps).toMatchObject([{ epoch: 1, sender_key_id: phone.status.keys.keyId, mode: "auth" }]);
    expect(state.other_devices_with_current_key).toBe(1);
  });

  it("Deny on the approving device ends it on the asking one", async () => {
    const { phone, laptop } = await pair("bea@example.com");
    const { requester, approver } = await compare(phone, laptop);
    const denied = await approver.deny();
    expect(await requester.update(denied)).toEqual({ step: "ended", status: "denied" });
    expect(await laptop.approval.requests()).toEqual([]);
    expect(await requester.accept(denied)).toBe(false);
  });

  it("No on the asking device, even after the approval, keeps nothing and takes the handover back", async () => {
    const { phone, laptop } = await pair("dot@example.com");
    const { requester, approver } = await compare(phone, laptop);
    // Yes before the other device approved: nothing to accept yet.
    expect(await requester.accept()).toBe(false);
    await approver.approve();
    await requester.refuse();
    expect((await laptop.approval.state()).wraps).toEqual([]);
    expect((await laptop.keys.sync()).state).toBe("locked");
    expect(laptop.store.keys(server.url)?.epochs).toEqual({});
  });

  it("a reveal that does not open the commitment ends the request and shows no code", async () => {
    const { phone, laptop } = await pair("cyd@example.com");
    // A commitment to some other nonce, as a server swapping the nonce would make it look.
    const requester = new KeyRequester(laptop.userId, laptop.status.keys, laptop.storage, {
      ...laptop.approval,
      ask: () => laptop.approval.ask("A".repeat(43)),
    });
    const asked = await requester.ask();
    const approver = new KeyApprover(phone.userId, phone.status.keys, phone.approval);
    await requester.update(await approver.compare(asked));
    const [revealed] = await phone.approval.requests();
    expect(await approver.update(revealed ?? asked)).toEqual({ step: "failed" });
    expect(await phone.approval.requests()).toEqual([]);
  });
});

describe("daysync login on a locked account", () => {
  /** The phone's side, as a person would work it: Compare codes on the first request, then Approve. */
  async function phoneApproves(phone: TestDevice, codes: string[]) {
    const waitFor = async (test: (r: Awaited<ReturnType<typeof phone.approval.requests>>[number]) => boolean) => {
      for (;;) {
        const found = (await phone.approval.requests()).find(test);
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const approver = new KeyApprover(phone.userId, phone.status.keys, phone.approval);
    const asked = await waitFor((r) => r.status === "pending");
    await approver.compare(asked);
    const step = await approver.update(await waitFor((r) => r.id === asked.id && r.status === "revealed"));
    if (step.step === "compare") codes.push(step.code);
    await approver.approve();
  }

  it("waits for the check code, asks [y/N], and keeps the key after yes", async () => {
    const { phone, laptop } = await pair("eve@example.com");
    const lines: string[] = [];
    const questions: string[] = [];
    const codes: string[] = [];
    const approving = phoneApproves(phone, codes);
    await waitForKeyApproval(laptop, laptop.userId, laptop.status.keys, {
      confirm: async (question) => {
        questions.push(question);
        await approving;
        return question.includes(codes[0] ?? "none");
      },
      log: (line) => lines.push(line),
      pollMs: 50,
    });
    expect(questions).toEqual([`Does your other device show ${codes[0]}? [y/N] `]);
    expect(codes[0]).toMatch(/^\d{3} \d{3}$/);
    expect(lines.at(-1)).toBe("This terminal can now read your messages.");
    expect(Object.keys(laptop.store.keys(server.url)?.epochs ?? {})).toEqual(["1"]);
    expect(LOCKED_TERMINAL).toBe("Signed in, but this terminal cannot read yet.");
  });

  it("no at the prompt ends the request and keeps nothing", async () => {
    const { phone, laptop } = await pair("fay@example.com");
    const approving = phoneApproves(phone, []).catch(() => undefined);
    const waiting = waitForKeyApproval(laptop, laptop.userId, laptop.status.keys, {
      confirm: async () => false,
      log: () => {},
      pollMs: 50,
    });
    await expect(waiting).rejects.toThrow("Not approved");
    await approving;
    expect(laptop.store.keys(server.url)?.epochs).toEqual({});
    expect((await laptop.approval.state()).wraps).toEqual([]);
  });
});
