/**
 * Decision 021's way out for a locked device while another device still holds the key: it asks to start over; every
 * device of the account is told and one holding the key can cancel; after 24 hours with no cancel, the asking device
 * may start over. Real devices' key code over HTTP; the server's clock moves.
 */
import { KEYS_API, keysStateSchema, START_OVER_WAIT_MS } from "@daysync/shared";
import { makeRecoveryCode } from "@daysync/shared/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { person } from "../../testing/discussion-api.ts";
import { type KeyDevice, keyedAccount, keysOf } from "../../testing/key-devices.ts";
import { Device, startTestServer, type TestServer } from "../../testing/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ LOGIN_RATE_LIMIT_MAX: "1000" });
});
afterAll(() => server.close());

const ask = (device: Device) => device.post(KEYS_API.startOver);
const cancel = (device: Device) => device.request("DELETE", KEYS_API.startOver);

/** The start-over changes logged for the user, which every device of the account hears live or on resume. */
async function startOverEvents(userId: string): Promise<number> {
  const rows = await server.db
    .selectFrom("user_events")
    .select("kind")
    .where("user_id", "=", userId)
    .where("kind", "=", "key.start_over_changed")
    .execute();
  return rows.length;
}

describe("asking to start over while another device holds the key", () => {
  it("every device is told; Start over is refused for 24 hours, then allowed, and the request is used up", async () => {
    const { keyed, signIn, user } = await keyedAccount(server, "Wes");
    const locked = await signIn();
    const asked = await ask(locked.device);
    expect(asked.status).toBe(200);
    const mine = keysStateSchema.parse(asked.body).start_over;
    expect(mine).toMatchObject({ by_this_device: true });
    expect(mine && mine.available_at - mine.requested_at).toBe(START_OVER_WAIT_MS);
    expect((await keysOf(keyed.device)).start_over).toEqual({ ...mine, by_this_device: false });
    expect(await startOverEvents(user.id)).toBe(1);
    // Asking again changes nothing (the 24 hours run from the first ask).
    expect(keysStateSchema.parse((await ask(locked.device)).body).start_over).toEqual(mine);

    expect(await locked.keys.startOver()).toEqual({ ok: false, code: "key_epoch_in_use" });
    server.clock.advance(START_OVER_WAIT_MS - 60_000);
    await keyed.keys.sync(); // the holder is around, so the 7-day rule does not apply
    expect(await locked.keys.startOver()).toEqual({ ok: false, code: "key_epoch_in_use" });
    server.clock.advance(2 * 60_000);
    expect(await locked.keys.startOver()).toMatchObject({ ok: true });
    expect((await keysOf(locked.device)).epoch).toBe(2);
    expect((await keysOf(keyed.device)).start_over).toBeUndefined();
    expect(await startOverEvents(user.id)).toBe(2);
  });

  it("a device holding the key cancels it: 24 hours later Start over is still refused", async () => {
    const { keyed, signIn } = await keyedAccount(server, "Ida");
    const locked = await signIn();
    expect((await ask(locked.device)).status).toBe(200);
    const cancelled = await cancel(keyed.device);
    expect(cancelled.status).toBe(200);
    expect(keysStateSchema.parse(cancelled.body).start_over).toBeUndefined();
    expect((await keysOf(locked.device)).start_over).toBeUndefined();
    server.clock.advance(START_OVER_WAIT_MS + 60_000);
    await keyed.keys.sync();
    expect(await locked.keys.startOver()).toEqual({ ok: false, code: "key_epoch_in_use" });
  });
});

describe("what an attacker with the password, or another account, can do with it", () => {
  it("another locked device can neither cancel nor use the request; asking replaces it and starts the 24 hours again", async () => {
    const { keyed, signIn } = await keyedAccount(server, "Noa");
    const first = await signIn();
    const second = await signIn();
    expect((await ask(first.device)).status).toBe(200);
    const refused = await cancel(second.device);
    expect(refused.status).toBe(403);
    expect((await keysOf(keyed.device)).start_over).toBeDefined();
    server.clock.advance(START_OVER_WAIT_MS / 2);
    expect((await ask(second.device)).status).toBe(200);
    server.clock.advance(START_OVER_WAIT_MS / 2 + 60_000);
    await keyed.keys.sync();
    // The first one's request was replaced; the second's 24 hours have not passed.
    expect(await first.keys.startOver()).toEqual({ ok: false, code: "key_epoch_in_use" });
    expect(await second.keys.startOver()).toEqual({ ok: false, code: "key_epoch_in_use" });
    // The asking device may withdraw its own request.
    expect((await cancel(second.device)).status).toBe(200);
    expect((await keysOf(keyed.device)).start_over).toBeUndefined();
  });

  it("is refused to a device that holds the key (409 key_held) and while a recovery code is set (403)", async () => {
    const { keyed, signIn } = await keyedAccount(server, "Lev");
    const holder = await ask(keyed.device);
    expect([holder.status, holder.body]).toMatchObject([409, { error: { code: "key_held" } }]);
    await keyed.makeCode(await makeRecoveryCode());
    const locked: KeyDevice = await signIn();
    const withCode = await ask(locked.device);
    expect([withCode.status, withCode.body]).toMatchObject([403, { error: { code: "key_recovery_code_set" } }]);
    expect((await keysOf(keyed.device)).start_over).toBeUndefined();
  });

  it("another account's cancel touches nothing of this one, and signed out it is 401", async () => {
    const { keyed, signIn } = await keyedAccount(server, "Uma");
    const locked = await signIn();
    expect((await ask(locked.device)).status).toBe(200);
    const stranger = await person(server, "Stranger");
    // Every route is about the caller's own account: the stranger's has no request, so nothing is cancelled.
    const theirs = await cancel(stranger.device);
    expect(theirs.status).toBe(200);
    expect(keysStateSchema.parse(theirs.body).start_over).toBeUndefined();
    expect((await keysOf(keyed.device)).start_over).toBeDefined();
    expect((await cancel(new Device(server.url))).status).toBe(401);
    expect((await ask(new Device(server.url))).status).toBe(401);
  });
});
