import { existsSync, mkdirSync, readFileSync, rmdirSync } from "node:fs";
import path from "node:path";
import { DEVICES_API, type DevicesResponse } from "@daysync/shared";
import { describe, expect, it } from "vitest";
import { startTestServer } from "../../server/src/testing/test-server.ts";
import type { WatchedMessage } from "../src/commands/watch.ts";
import { type CliProcess, tempDir, until } from "./cli-process.ts";
import { sendFromBrowser } from "./key-holder.ts";
import { signedInTerminal, useSignedInTerminal } from "./sign-in.ts";

const ann = useSignedInTerminal();

async function send(content: string) {
  // A second apart, as typed messages are: the catch-up after a reset goes by creation time.
  ann.server.clock.advance(1000);
  await sendFromBrowser(ann, content, ann.server.clock.now());
}

async function startWatching(args: string[], env: Record<string, string> = {}): Promise<CliProcess> {
  const cli = ann.terminal.spawn(["watch", ...args], { env });
  // A CLI process starting while the whole suite runs beside it has taken over the default 10 s here.
  await cli.waitFor(/Watching for new messages/, { stream: "stderr", timeoutMs: 30_000 });
  return cli;
}

const contents = (cli: CliProcess) => cli.jsonLines<WatchedMessage>().map((m) => m.content);

async function waitForLines(cli: CliProcess, count: number) {
  await cli.waitFor(new RegExp(`^(\\{.*\\}\\n){${count}}`), { timeoutMs: 15_000 });
}

describe("daysync watch", () => {
  it("--json prints what a browser sends, and resumes after a server restart with nothing missed or doubled", async () => {
    const cli = await startWatching(["--json"]);
    await send("one");
    await send("two");
    await waitForLines(cli, 2);

    const { dataDir, clock } = ann.server;
    const port = Number(new URL(ann.server.url).port);
    await ann.server.close({ keepData: true });
    await cli.waitFor(/connection to .* was lost \(.+\); reconnecting/, { stream: "stderr" });
    const down = await ann.terminal.run(["ls"]);
    expect(down.code).toBe(4);
    expect(down.stderr).toContain(`Cannot reach the Daysync server at ${ann.server.url}`);

    ann.server = await startTestServer({}, { dataDir, clock, port });
    // Sent while the terminal is still away or reconnecting: they come by replay or live, each once.
    await send("three");
    await send("four");
    await waitForLines(cli, 4);
    await send("five");
    await waitForLines(cli, 5);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(contents(cli)).toEqual(["one", "two", "three", "four", "five"]);
    expect(cli.stderr).toContain("Reconnected.");
    const seqs = cli.jsonLines<WatchedMessage>().map((m) => m.seq ?? 0);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(5);
    expect(await cli.kill("SIGTERM")).toBe(0);

    // What arrives while no watch runs is printed by the next one, and nothing from before.
    await send("while away");
    const next = await startWatching(["--json"]);
    await waitForLines(next, 1);
    await send("six");
    await waitForLines(next, 2);
    expect(contents(next)).toEqual(["while away", "six"]);
    await next.kill();
  });

  it("a watch position that cannot be saved is said once, and watch goes on and saves it once it can", async () => {
    const cli = await startWatching(["--json"]);
    // A directory where the position's temporary file goes: every save fails (EISDIR), as on a full disk.
    const blocker = path.join(ann.terminal.configDir, `watch.json.${cli.child.pid}.tmp`);
    mkdirSync(blocker);
    await send("one");
    await send("two");
    await waitForLines(cli, 2);
    await cli.waitFor(/Could not save the watch position/, { stream: "stderr" });
    expect(cli.stderr.match(/Could not save the watch position/g)).toHaveLength(1);
    expect(cli.child.exitCode).toBeNull();
    rmdirSync(blocker);
    await send("three");
    await waitForLines(cli, 3);
    await until(() => existsSync(path.join(ann.terminal.configDir, "watch.json")));
    expect(contents(cli)).toEqual(["one", "two", "three"]);
    expect(await cli.kill("SIGTERM")).toBe(0);
    // The next run starts from the saved position: nothing before it comes again.
    await send("four");
    const next = await startWatching(["--json"]);
    await waitForLines(next, 1);
    expect(contents(next)).toEqual(["four"]);
    await next.kill();
  });

  it("--exec runs a command for each message with the text on its standard input, one at a time", async () => {
    const out = path.join(tempDir("exec"), "out.txt");
    const cli = await startWatching(["--exec", `printf '%s:' "$DAYSYNC_MESSAGE_TYPE" >> '${out}'; cat >> '${out}'; echo >> '${out}'`]);
    await send("first line\nsecond line");
    await send("https://example.com");
    await cli.waitFor(/example\.com/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(readFileSync(out, "utf8")).toBe("text:first line\nsecond line\ntext:https://example.com\n");
    await cli.kill();
  });

  it("--copy puts each new text into the clipboard (DAYSYNC_CLIPBOARD_COMMAND stands in for the system's here)", async () => {
    const clip = path.join(tempDir("clip"), "clipboard.txt");
    const cli = await startWatching(["--copy"], { DAYSYNC_CLIPBOARD_COMMAND: `cat > '${clip}'` });
    await send("s3cret-password");
    await cli.waitFor(/s3cret-password/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(readFileSync(clip, "utf8")).toBe("s3cret-password");
    await cli.kill();
  });

  it.runIf(process.platform === "linux")(
    "--copy without any clipboard (no display ann.server) fails at once with a clear error",
    async () => {
      const out = await ann.terminal.run(["watch", "--copy"]);
      expect(out.code).toBe(1);
      expect(out.stderr).toContain("No clipboard here: this system has no display server");
      expect(out.stderr).toContain("DAYSYNC_CLIPBOARD_COMMAND");
    },
  );

  it("when the change log no longer reaches its position (reset), it catches up over HTTP, each message once", async () => {
    const cli = await startWatching(["--json"]);
    await send("before");
    await waitForLines(cli, 1);
    await cli.kill();
    await send("while away 1");
    await send("while away 2");
    // As the sweeper prunes a log older than the retention.
    await ann.server.db.deleteFrom("user_events").execute();

    const next = await startWatching(["--json"]);
    await waitForLines(next, 2);
    await send("after");
    await waitForLines(next, 3);
    expect(contents(next)).toEqual(["while away 1", "while away 2", "after"]);
    expect(next.jsonLines<WatchedMessage>().map((m) => m.seq === null)).toEqual([true, true, false]);
    await next.kill();
  });

  it("stops with exit code 3 when this device is signed out from another device", async () => {
    // A second terminal, signed in by password: the browser, holding no key, may sign it out (not the one that holds
    // the account's key, issue 42).
    const second = await signedInTerminal(ann.server.url, "ann@example.com");
    const cli = second.spawn(["watch"]);
    await cli.waitFor(/Watching for new messages/, { stream: "stderr", timeoutMs: 30_000 });
    const own = JSON.parse((await second.run(["devices", "--json"])).stdout) as DevicesResponse["devices"];
    expect((await ann.browser.request("DELETE", DEVICES_API.one(own.find((d) => d.current)?.id ?? ""))).status).toBe(204);
    expect(await cli.exited).toBe(3);
    expect(cli.stderr).toContain("This device was signed out");
  });
});
