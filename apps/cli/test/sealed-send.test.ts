/**
 * `daysync send` seals on the terminal (docs/protocol/encryption.md, "Rotation and revocation" and "Sealed messages"): what the server stores is sealed under the
 * account's current epoch; a terminal without that epoch refuses to send; a key change between the terminal's sync
 * and its send is synced, sealed again and sent once more with the same id.
 */
import { API, DEVICES_API, type DevicesResponse, type Message, SEALED_TEXT } from "@daysync/shared";
import { openMessage } from "@daysync/shared/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../server/src/testing/test-server.ts";
import type { ListedMessage } from "../src/commands/list.ts";
import { EXIT } from "../src/errors.ts";
import { removeTempDirs, type Terminal } from "./cli-process.ts";
import { HookProxy } from "./hook-proxy.ts";
import { type KeyHolder, keyHolder, pairedTerminal, terminalEpochs } from "./key-holder.ts";
import { registerBrowser, signedInTerminal } from "./sign-in.ts";

let server: TestServer;
let proxy: HookProxy;
beforeAll(async () => {
  server = await startTestServer();
  proxy = await HookProxy.start(server.url);
});
afterAll(async () => {
  await proxy.close();
  await server.close();
  await removeTempDirs();
});

const storedRow = (id: string) => server.db.selectFrom("messages").selectAll().where("id", "=", id).executeTakeFirst();
const storedWith = (marker: string) => server.db.selectFrom("messages").select("id").where("content", "like", `%${marker}%`).execute();

async function deviceIdOf(terminal: Terminal): Promise<string> {
  const out = await terminal.run(["devices", "--json"]);
  const devices = JSON.parse(out.stdout) as DevicesResponse["devices"];
  return devices.find((d) => d.current)?.id ?? "";
}

/** Runs `step` (another device acting) just before the next send reaches the server, once. */
function beforeNextSend(step: () => Promise<void>) {
  proxy.hook = {
    matches: (req) => req.method === "POST" && req.url === API.messages,
    run: async () => {
      proxy.hook = null;
      await step();
    },
  };
}

describe("daysync send seals", () => {
  let first: Terminal;

  it("stores the text sealed under the account's epoch: no trace of it in the database, yet the terminal lists it", async () => {
    await registerBrowser(server.url, "ada@example.com");
    first = await signedInTerminal(server.url, "ada@example.com");
    const marker = "marker-7d1f the vault code is 4711";
    const out = await first.run(["send", "--json", marker]);
    expect(out.code, out.stderr).toBe(0);
    // --json prints the message opened, never its sealed value.
    const sent = JSON.parse(out.stdout) as Message;
    expect(sent).toMatchObject({ content: marker, epoch: 1, preview: marker });
    expect(out.stdout).not.toMatch(/"v1\.\d+\./);

    const row = await storedRow(sent.id);
    expect(row).toMatchObject({ epoch: 1 });
    expect(row?.content).toMatch(/^v1\.1\.[A-Za-z0-9_-]+$/);
    expect(row?.preview).toMatch(/^v1\.1\.[A-Za-z0-9_-]+$/);
    expect(await storedWith("vault")).toEqual([]);
    expect(await storedWith("7d1f")).toEqual([]);

    const listed = await first.run(["ls", "--json"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as ListedMessage[]).find((m) => m.id === sent.id)).toMatchObject({
      content: marker,
      size: marker.length,
    });
    expect(listed.stdout).not.toMatch(/"v1\.\d+\./);
  });

  it("a terminal that is not approved yet refuses to send, saying how to approve it, and shows sealed messages as locked", async () => {
    // Signed in by password on an account that has a key: a pair of its own, no epoch.
    const locked = await signedInTerminal(server.url, "ada@example.com");
    const out = await locked.run(["send", "marker-b2c9 not for the server"]);
    expect(out.code).toBe(EXIT.locked);
    expect(out.stderr).toContain(SEALED_TEXT.approveToSend);
    expect(await storedWith("b2c9")).toEqual([]);

    const listed = await locked.run(["ls"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(SEALED_TEXT.locked);
    expect(listed.stdout).not.toContain("vault");
    const json = JSON.parse((await locked.run(["ls", "--json"])).stdout) as ListedMessage[];
    expect(json.map((m) => [m.content, m.error])).toEqual([["", SEALED_TEXT.locked]]);
  });
});

describe("a key change between the terminal's sync and its send", () => {
  let holder: KeyHolder;
  let terminal: Terminal;

  it("key_epoch_changed: the terminal takes the next epoch and sends the same message sealed under it", async () => {
    holder = await keyHolder(server.url, "bo@example.com");
    terminal = await pairedTerminal(proxy.url, holder);
    const leaving = await pairedTerminal(server.url, holder);
    const leavingId = await deviceIdOf(leaving);
    // Another device signs a key holder out and rotates at once, after the terminal synced, before its send arrives.
    beforeNextSend(async () => {
      expect((await holder.device.request("DELETE", DEVICES_API.one(leavingId))).status).toBe(204);
      await holder.sync();
      expect(holder.sealer.epoch).toBe(2);
    });
    const out = await terminal.run(["send", "--json", "marker-e5a0 after the rotation"]);
    expect(out.code, out.stderr).toBe(0);
    const sent = JSON.parse(out.stdout) as Message;
    expect(sent).toMatchObject({ epoch: 2, content: "marker-e5a0 after the rotation" });
    expect(proxy.hook).toBeNull();

    // Stored once, under epoch 2, and the device that rotated opens it.
    expect(await storedRow(sent.id)).toMatchObject({ epoch: 2 });
    const { message } = (await holder.device.get<{ message: Message }>(API.message(sent.id))).body;
    expect(await openMessage(holder.userId, holder.held.epochs, message)).toMatchObject({
      state: "opened",
      text: "marker-e5a0 after the rotation",
    });
  });

  it("key_rotation_due: the terminal makes the next epoch itself and seals again; refused once more, it says why and fails", async () => {
    const leaving = await pairedTerminal(server.url, holder);
    const leavingId = await deviceIdOf(leaving);
    // The first try meets a rotation due (the terminal rotates to epoch 3), the second another one.
    beforeNextSend(async () => {
      expect((await holder.device.request("DELETE", DEVICES_API.one(leavingId))).status).toBe(204);
      beforeNextSend(async () => {
        expect((await holder.device.post(API.logout)).status).toBeLessThan(300);
      });
    });
    const out = await terminal.run(["send", "marker-91fe twice refused"]);
    expect(out.code).toBe(EXIT.failure);
    expect(out.stderr).toContain("Your devices are moving to a new key; this is sent as soon as that is done.");
    expect(proxy.hook).toBeNull();
    expect([...(await terminalEpochs(terminal)).keys()].sort()).toEqual([1, 2, 3]);
    expect(await storedWith("91fe")).toEqual([]);
    expect(await server.db.selectFrom("messages").select("id").where("epoch", "=", 3).execute()).toEqual([]);
  });
});
