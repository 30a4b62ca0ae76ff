/**
 * The typed-code approval's steps (docs/protocol/encryption.md, "Approving a device") as the key-request tests take
 * them: an account with a locked device, and asking, answering, confirming and the handover through the API. The
 * server checks no cryptography, so shares and tags here are random bytes of the right length.
 */
import { type ApproveKeyRequestInput, KEYS_API, type KeyRequest } from "@daysync/shared";
import { expect } from "vitest";
import { person } from "./discussion-api.ts";
import { b64, keyed, rosterRow, wrapFor } from "./key-material.ts";
import { Device, type TestServer } from "./test-server.ts";

/**
 * An account whose phone made epoch 1 for itself and the tablet; the laptop signed in by password afterwards, keyed
 * but locked.
 */
export async function account(server: Pick<TestServer, "url">, name: string) {
  const { device: phone, user, email } = await person(server, name);
  const tablet = new Device(server.url);
  await tablet.login(email);
  const laptop = new Device(server.url);
  await laptop.login(email);
  const [phoneKey, tabletKey, laptopKey] = [await keyed(phone), await keyed(tablet), await keyed(laptop)];
  const made = await phone.post(KEYS_API.epochs, {
    epoch: 1,
    expected: null,
    reason: "first",
    wraps: [wrapFor(1, phoneKey, phoneKey), wrapFor(1, tabletKey, phoneKey)],
    roster: [rosterRow(1, phoneKey, phoneKey), rosterRow(1, tabletKey, phoneKey)],
  });
  expect(made.status).toBe(201);
  return { user, email, phone, tablet, laptop, phoneKey, tabletKey, laptopKey };
}
export type Account = Awaited<ReturnType<typeof account>>;

/** The device asks for the key; its pending request. */
export const ask = async (device: Device) => {
  const res = await device.post<{ request: KeyRequest }>(KEYS_API.requests, { requester_share: b64(32) });
  expect(res.status).toBe(201);
  return res.body.request;
};

/** The phone's handover of `epoch` to the laptop. */
export const handover = (a: Account, epoch = 1): ApproveKeyRequestInput => ({
  wraps: [wrapFor(epoch, a.laptopKey, a.phoneKey)],
  roster: rosterRow(epoch, a.laptopKey, a.phoneKey),
  handover_confirmation: b64(32),
});

/** The laptop asked, the phone answered with a code and the laptop confirmed it. */
export async function confirmed(a: Account) {
  const request = await ask(a.laptop);
  expect((await a.phone.post(KEYS_API.answer(request.id), { approver_share: b64(32), approver_confirmation: b64(32) })).status).toBe(200);
  expect((await a.laptop.post(KEYS_API.confirm(request.id), { requester_confirmation: b64(32) })).status).toBe(200);
  return request;
}

/** The open requests the device is shown. */
export const listOf = async (device: Device) => {
  const res = await device.get<{ requests: KeyRequest[] }>(KEYS_API.requests);
  expect(res.status).toBe(200);
  return res.body.requests;
};
