/**
 * Accounts keyed before the signed device list (docs/protocol/encryption.md, "Signed device list", "Accounts keyed
 * before the list"): their devices ran the key code without a list (`legacy`), so the database holds epochs, wraps
 * and roster rows as that code writes them, no list entry and no signing key. After the upgrade the devices move to
 * the list without re-pairing, and nothing sealed before is lost.
 */
import { DEVICE_LIST_API, deviceListSchema } from "@daysync/shared";
import { makeRecoveryCode, sealerOf } from "@daysync/shared/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { person } from "../../testing/discussion-api.ts";
import { keyDevice } from "../../testing/key-devices.ts";
import { Device, startTestServer, type TestServer } from "../../testing/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ LOGIN_RATE_LIMIT_MAX: "1000" });
});
afterAll(() => server.close());

const listOf = async (device: Device) => deviceListSchema.parse((await device.get(DEVICE_LIST_API.list)).body);

describe("an account keyed before the signed device list", () => {
  it("moves to the list on its devices' next sync: the first upgraded holder makes it, the other is added when it upgrades", async () => {
    const { device, user, email } = await person(server, "Legacy");
    const a = keyDevice(device, user.id, { legacy: true });
    expect((await a.keys.sync()).state).toBe("ready");
    const code = await makeRecoveryCode();
    await a.makeCode(code);
    const fresh = new Device(server.url);
    await fresh.login(email);
    const b = keyDevice(fresh, user.id, { legacy: true });
    expect((await b.keys.sync()).state).toBe("locked");
    await b.unlock(code);
    expect(await b.keys.sync()).toMatchObject({ state: "ready", epoch: 1 });
    expect(await listOf(a.device)).toEqual({ entries: [], signing_keys: [] });

    // B upgrades first: it holds the key, so it makes the list with itself; A has no signing key yet.
    const bNew = b.upgraded();
    expect(await bNew.sync()).toMatchObject({ state: "ready", epoch: 1 });
    expect((await listOf(a.device)).entries.map((e) => [e.kind, e.key_id])).toEqual([["add", b.held().keyId]]);

    // A upgrades: it publishes its signing key, and B's next sync adds it (A is in the current roster, tag valid).
    const aNew = a.upgraded();
    const aStatus = await aNew.sync();
    expect(aStatus).toMatchObject({ state: "ready", epoch: 1 });
    expect(aStatus.state !== "lost" && aStatus.listProblem).toBeFalsy();
    await bNew.sync();
    const entries = (await listOf(a.device)).entries;
    expect(entries.map((e) => [e.kind, e.key_id, e.signer_key_id])).toEqual([
      ["add", b.held().keyId, b.held().keyId],
      ["add", a.held().keyId, b.held().keyId],
    ]);

    // Both pin the head, and a removal from A is signed by a member now: B takes A's next epoch, and seals under it.
    expect((await aNew.sync()).state).toBe("ready");
    expect(a.held().account?.listHead?.seq).toBe(1);
    const rotated = await aNew.rotateNow();
    expect(rotated).toMatchObject({ state: "ready", epoch: 2 });
    const bStatus = await bNew.sync();
    expect(bStatus).toMatchObject({ state: "ready", epoch: 2 });
    expect(sealerOf(user.id, bStatus)?.epoch).toBe(2);
    expect(b.held().epochs.has(1)).toBe(true);
  });
});
