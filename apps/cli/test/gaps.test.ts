/**
 * Gaps shown, not hidden (docs/protocol/encryption.md, "Sealed messages"): the terminal numbers what it sends, counted
 * in keys.json from one command to the next, and says on stderr, in `ls` and in `watch`, when one of another device's
 * numbered messages did not arrive because the server dropped it.
 */
import { DEVICES_API } from "@daysync/shared";
import { memorySendNumbers, SendNumbering, sealTextMessage } from "@daysync/shared/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer, textMessage } from "../../server/src/testing/test-server.ts";
import { ConfigStore } from "../src/config-store.ts";
import { removeTempDirs, type Terminal } from "./cli-process.ts";
import { type KeyHolder, keyHolder, pairedTerminal, postSealed } from "./key-holder.ts";

let server: TestServer;
let holder: KeyHolder;
let terminal: Terminal;
beforeAll(async () => {
  server = await startTestServer();
  holder = await keyHolder(server.url, "gaps@example.com");
  expect((await holder.device.request("PATCH", DEVICES_API.one(holder.sealer.sessionId), { name: "Laptop" })).status).toBe(200);
  holder.sealer = { ...holder.sealer, numbering: new SendNumbering(holder.held.keyId, memorySendNumbers()) };
  terminal = await pairedTerminal(server.url, holder);
});
afterAll(async () => {
  await server.close();
  await removeTempDirs();
});

/** The laptop's next numbered message, a second after the last. */
async function fromLaptop(content: string): Promise<string> {
  server.clock.advance(1000);
  const id = await postSealed(holder.device, holder.sealer, content, server.clock.now());
  await holder.sealer.numbering?.stored(id);
  return id;
}

describe("numbered messages on the terminal", () => {
  it("send numbers each message in keys.json, going on from one command to the next", async () => {
    for (const text of ["first from the terminal", "second from the terminal"]) {
      const sent = await terminal.run(["send", text]);
      expect(sent.code, sent.stderr).toBe(0);
    }
    expect(new ConfigStore(terminal.configDir).keys(terminal.server)?.numbers?.next).toBe(3);
  });

  it("ls says on stderr that 1 message from Laptop did not arrive when the server dropped one", async () => {
    await fromLaptop("one");
    const dropped = await fromLaptop("two");
    await fromLaptop("three");
    const before = await terminal.run(["ls"]);
    expect(before.stderr).not.toContain("did not arrive");

    await server.db.deleteFrom("messages").where("id", "=", dropped).execute();
    const after = await terminal.run(["ls"]);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stderr).toContain("1 message from Laptop did not arrive");
    expect(after.stdout).toContain("three");
  });

  it("watch says it as the next message arrives, when the server took one and never stored it", async () => {
    const cli = terminal.spawn(["watch"]);
    try {
      await cli.waitFor(/Watching for new messages/, { stream: "stderr", timeoutMs: 30_000 });
      await fromLaptop("four");
      await cli.waitFor(/four/, { timeoutMs: 15_000 });
      // The server answers the laptop's fifth message and keeps nothing of it.
      server.clock.advance(1000);
      const swallowed = await sealTextMessage(holder.sealer, textMessage("five", server.clock.now()));
      await holder.sealer.numbering?.stored(swallowed.id);
      await fromLaptop("six");
      await cli.waitFor(/six/, { timeoutMs: 15_000 });
      await cli.waitFor(/1 message from Laptop did not arrive/, { stream: "stderr", timeoutMs: 15_000 });
      expect(cli.stdout).not.toContain("five");
    } finally {
      cli.kill();
    }
  });
});
