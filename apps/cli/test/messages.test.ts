import { randomUUID } from "node:crypto";
import { formatDisplayDate, formatStoredDate, type Message, type ServerLiveMessage } from "@daysync/shared";
import { openMessage } from "@daysync/shared/crypto";
import { describe, expect, it } from "vitest";
import { freePort } from "../../server/src/testing/free-port.ts";
import { startTestServer } from "../../server/src/testing/test-server.ts";
import type { ListedMessage } from "../src/commands/list.ts";
import { Terminal } from "./cli-process.ts";
import { sendFromBrowser, terminalEpochs } from "./key-holder.ts";
import { registerBrowser, signedInTerminal, useSignedInTerminal } from "./sign-in.ts";

/** The address of a port nothing listens on. */
const closedPort = async () => `http://127.0.0.1:${await freePort()}`;

const ann = useSignedInTerminal();

const created = (received: ServerLiveMessage[]) =>
  received.flatMap((m) => (m.type === "event" && m.event.kind === "message.created" ? [m.event.message] : []));

describe("daysync send", () => {
  it("sends standard input as a text message of today, which another device receives live", async () => {
    const live = await ann.browser.live();
    await live.waitFor((r) => r.some((m) => m.type === "ready"));
    const out = await ann.terminal.run(["send"], { input: "password from the server shell\n" });
    expect(out.code, out.stderr).toBe(0);
    await live.waitFor((r) => created(r).length === 1);
    const [message] = created(live.received);
    // Sealed on the terminal (decision 020): the other device gets a sealed value it opens with the account's key.
    expect(message).toMatchObject({ type: "text", epoch: 1, date: formatStoredDate(new Date()) });
    expect(message?.content).toMatch(/^v1\.1\./);
    const opened = message && (await openMessage(message.user_id, await terminalEpochs(ann.terminal), message));
    expect(opened).toMatchObject({ state: "opened", text: "password from the server shell" });
    expect(out.stdout).toContain(`Sent message ${message?.id} (30 characters).`);
    live.close();
  });

  it("sends its arguments as one text, and a file redirected to standard input whole", async () => {
    const words = await ann.terminal.run(["send", "see", "you", "at", "8"]);
    expect(words.code).toBe(0);
    const notes = await ann.terminal.run(["send", "--json"], { input: "line one\nline two\n" });
    const sent = JSON.parse(notes.stdout) as Message;
    expect(sent.content).toBe("line one\nline two");
    const search = await ann.terminal.run(["search", "see", "you", "--json"]);
    expect((JSON.parse(search.stdout) as { message: Message }[]).map((r) => r.message.content)).toEqual(["see you at 8"]);
  });

  it("refuses empty input and an overlong text with a usage error", async () => {
    const empty = await ann.terminal.run(["send"], { input: "  \n" });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("Nothing to send");
    const long = await ann.terminal.run(["send"], { input: "x".repeat(20_001) });
    expect(long.code).toBe(2);
    expect(long.stderr).toContain("A message is at most 20000 characters. Send it as a file: daysync send --file PATH");
  });
});

describe("daysync ls, days, search and get", () => {
  it("lists today's messages with time, sending device, type, size and time left, as a table or JSON", async () => {
    const json = await ann.terminal.run(["ls", "--json"]);
    expect(json.code).toBe(0);
    const listed = JSON.parse(json.stdout) as ListedMessage[];
    const first = listed.find((m) => m.content === "password from the server shell");
    // Free plan: 15 minutes from the server's time of creation.
    expect(first).toMatchObject({ type: "text", size: 30, expires_at: (first?.timestamps ?? 0) + 15 * 60_000 });

    const table = await ann.terminal.run(["ls"]);
    expect(table.stdout.split("\n")[0]).toMatch(/^TIME\s+FROM\s+TYPE\s+SIZE\s+LEFT\s+ID\s+CONTENT$/);
    // The terminal is a device of its own, named after its machine.
    expect(first?.device?.name).toMatch(/^daysync CLI on /);
    expect(table.stdout).toContain(first?.device?.name ?? "?");
    expect(table.stdout).toMatch(new RegExp(`text\\s+30 B\\s+.+${first?.id}\\s+password from the server shell`));
    expect(table.stdout).toContain("line one …");

    const otherDay = await ann.terminal.run(["ls", "--day", "01/01/2020"]);
    expect(otherDay.stdout).toContain("No messages on 01/01/2020.");
    const bad = await ann.terminal.run(["ls", "--day", "2020-01-01"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("write it as DD/MM/YYYY");
  });

  it("lists the days and finds text", async () => {
    const days = await ann.terminal.run(["days"]);
    expect(days.stdout).toMatch(new RegExp(`${formatDisplayDate(formatStoredDate(new Date()))}\\s+3\\s`));
    const none = await ann.terminal.run(["search", "nothing like this"]);
    expect(none.stdout).toContain('Nothing found for "nothing like this".');
  });

  it("get prints a text exactly, by id or the last one", async () => {
    ann.server.clock.advance(1000);
    const input = { id: await sendFromBrowser(ann, "  https://example.com/a?b=c  ", ann.server.clock.now()) };
    const byId = await ann.terminal.run(["get", input.id]);
    expect(byId.code).toBe(0);
    expect(byId.stdout).toBe("https://example.com/a?b=c");
    const last = await ann.terminal.run(["get", "last"]);
    expect(last.stdout).toBe("https://example.com/a?b=c");
  });

  it("get of a missing or expired message says so with exit code 5; a malformed id is a usage error", async () => {
    const missing = randomUUID();
    const gone = await ann.terminal.run(["get", missing]);
    expect(gone.code).toBe(5);
    expect(gone.stderr).toContain(`No message ${missing}: it has expired, or it never existed.`);
    expect((await ann.terminal.run(["get", "12"])).code).toBe(2);

    const input = { id: await sendFromBrowser(ann, "short-lived", ann.server.clock.now()) };
    expect((await ann.terminal.run(["get", input.id])).stdout).toBe("short-lived");
    ann.server.clock.advance(16 * 60_000);
    const expired = await ann.terminal.run(["get", input.id]);
    expect(expired.code).toBe(5);
    expect(expired.stderr).toContain("it has expired");
  });
});

describe("a busy server", () => {
  it("send waits as long as a 429 says and tries again with the same message id", async () => {
    // A window long enough that the second send (its key sync first) still falls in it on a loaded machine.
    const strict = await startTestServer({ SEND_RATE_LIMIT_MAX: "1", SEND_RATE_LIMIT_WINDOW_MS: "8000" });
    try {
      await registerBrowser(strict.url, "bea@example.com");
      const bea = await signedInTerminal(strict.url, "bea@example.com");
      expect((await bea.run(["send", "first"])).code).toBe(0);
      const second = await bea.run(["send", "second"]);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).toMatch(/Too many messages. Try again in [1-8] seconds?. Waiting…/);
      const listed = JSON.parse((await bea.run(["ls", "--json"])).stdout) as Message[];
      // Both were stored at the same test-clock instant, so their order is the ids'; each is there once.
      expect(listed.map((m) => m.content).sort()).toEqual(["first", "second"]);
    } finally {
      await strict.close();
    }
  });
});

describe("errors", () => {
  it("an unreachable server is named, with exit code 4", async () => {
    const nowhere = await closedPort();
    // --server wins over DAYSYNC_SERVER (which names the running server here).
    const out = await new Terminal(ann.server.url).run(["--server", nowhere, "login", "--password", "--email", "ann@example.com"], {
      input: "x\n",
    });
    expect(out.code).toBe(4);
    expect(out.stderr).toContain(`Cannot reach the Daysync server at ${nowhere} (ECONNREFUSED)`);
  });

  it("every command has --help", async () => {
    const commands = [
      [],
      ["login"],
      ["logout"],
      ["send"],
      ["ls"],
      ["days"],
      ["search"],
      ["get"],
      ["watch"],
      ["devices"],
      ["devices", "rm"],
    ];
    const helps = await Promise.all(commands.map((command) => ann.terminal.run([...command, "--help"])));
    helps.forEach((out, i) => {
      expect(out.code).toBe(0);
      expect(out.stdout).toContain(`Usage: daysync ${commands[i]?.join(" ")}`.trimEnd());
    });
  });
});
