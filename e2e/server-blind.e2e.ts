/**
 * The server is blind to what the person's devices send into their own days (docs/protocol/encryption.md, "How it is tested"), on both
 * engines: the web app, its share target and the CLI each send a text carrying a unique marker, and each a file whose
 * name and bytes carry markers of their own, which every device of the account opens; then no marker shows,
 * in any form, anywhere the server keeps or says anything: every file under its data folder (the SQLite file with its
 * WAL, the files folder), a `pg_dump` of its database, a Redis MONITOR transcript of the whole run, its log at debug
 * level, and the push payloads the push-service double received. Each device also searches for the texts, which it
 * does on its own.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { APP_ROUTES, SEALED_TEXT, TEXT } from "@daysync/shared";
import { RECORD_SIZE } from "@daysync/shared/crypto";
import { Redis } from "ioredis";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Terminal } from "../apps/cli/test/cli-process.ts";
import { decodeTerminalQr } from "../apps/cli/test/terminal-qr.ts";
import { createPgDatabaseFor } from "../apps/server/src/testing/pg-database.ts";
import {
  decryptPush,
  newSubscriptionKeys,
  type PushServiceDouble,
  startPushServiceDouble,
} from "../apps/server/src/testing/push-service-double.ts";
import { type ServerProcess, startServerProcess } from "../apps/server/src/testing/server-process.ts";
import { TEST_REDIS_URL, uniquePrefix } from "../apps/server/src/testing/test-redis.ts";
import { launchBrowser } from "./support/browser.ts";
import { chooseFiles, type Device, messageList, sendMessage, uniqueEmail, visible } from "./support/daysync.ts";
import { filesUnder, findMarkers, marker } from "./support/markers.ts";
import { keyedAccount, type NodeDevice } from "./support/node-device.ts";

const PG_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

describe.each([
  { engine: "SQLite", pg: false },
  { engine: "PostgreSQL and Redis", pg: true },
])("the server keeps no sent text or file readable ($engine)", ({ pg }) => {
  const markers = {
    web: marker("web"),
    share: marker("share"),
    cli: marker("cli"),
    fileName: marker("file-name"),
    fileBytes: marker("file-bytes"),
    webFileName: marker("web-file-name"),
    webFileBytes: marker("web-file-bytes"),
    cliFileName: marker("cli-file-name"),
    cliFileBytes: marker("cli-file-bytes"),
  };
  /** A file of several records whose bytes carry the marker throughout. */
  const markedFile = (name: string, bytesMarker: string, mimeType: string) => ({
    name,
    mimeType,
    buffer: Buffer.from(`${bytesMarker}\n`.repeat(Math.ceil((3 * RECORD_SIZE + 77) / (bytesMarker.length + 1)))),
  });
  const webFile = markedFile(`${markers.webFileName}.txt`, markers.webFileBytes, "text/plain");
  const cliFile = markedFile(`${markers.cliFileName}.log`, markers.cliFileBytes, "text/plain");
  const all = Object.values(markers);
  // Past 128 records, so the share target sends it in two PATCHes; every record holds the marker many times over.
  const sharedFile = {
    name: `${markers.fileName}.txt`,
    mimeType: "text/plain",
    buffer: Buffer.from(`${markers.fileBytes}\n`.repeat(Math.ceil((128 * RECORD_SIZE + 5000) / (markers.fileBytes.length + 1)))),
  };
  const dataDir = mkdtempSync(path.join(tmpdir(), "daysync-blind-"));
  let pgDatabase: Awaited<ReturnType<typeof createPgDatabaseFor>> | undefined;
  let redis: Redis | undefined;
  let monitor: Redis | undefined;
  const redisTraffic: string[] = [];
  let pushService: PushServiceDouble;
  const pushKeys = newSubscriptionKeys();
  let server: ServerProcess;
  let browser: Browser;
  let phone: NodeDevice;
  let laptop: Device;
  const email = uniqueEmail("blind");

  beforeAll(async () => {
    const env: Record<string, string> = {
      DATA_DIR: dataDir,
      LOG_LEVEL: "debug",
      // The push service is the test's double on loopback, which only a test server accepts.
      NODE_ENV: "test",
    };
    if (pg) {
      pgDatabase = await createPgDatabaseFor(PG_URL, dataDir);
      redis = new Redis(TEST_REDIS_URL);
      monitor = await redis.monitor();
      monitor.on("monitor", (_time: string, args: string[]) => redisTraffic.push(args.join(" ")));
      Object.assign(env, { DATABASE_URL: pgDatabase.url, REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: uniquePrefix() });
    }
    [pushService, server, browser] = await Promise.all([
      startPushServiceDouble(),
      startServerProcess(env, { captureOutput: true }),
      launchBrowser(),
    ]);
    ({ phone, laptop } = await keyedAccount(browser, server.url, "Blair Blind", email));
    await phone.subscribePush(`${pushService.url}/phone`, pushKeys.json);
  });
  afterAll(async () => {
    await phone?.dispose();
    await browser?.close();
    await server?.stop();
    await pushService?.close();
    monitor?.disconnect();
    redis?.disconnect();
    await pgDatabase?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("sends a marked text and a marked file from the web app, its share target and the CLI, and each device opens them", async () => {
    // The laptop is approved by the code it shows, typed on the phone, as a device signed in by password is.
    await laptop.page.goto(APP_ROUTES.dashboard);
    const lockedNotice = laptop.page.getByRole("heading", { name: SEALED_TEXT.approveToSend });
    await visible(lockedNotice, 30_000);
    await phone.approveByCheckCode(laptop.page);
    await lockedNotice.waitFor({ state: "detached", timeout: 30_000 });

    const list = messageList(laptop.page);
    await sendMessage(laptop.page, `from the web app ${markers.web}`);
    await chooseFiles(laptop.page, [webFile]);
    await laptop.page.getByRole("button", { name: TEXT.send, exact: true }).click();
    await visible(list.getByText(webFile.name, { exact: true }), 30_000);
    await visible(list.getByRole("listitem").filter({ hasText: markers.web }).getByText("Sent", { exact: true }), 30_000);

    // What a phone's share sheet does: a multipart POST navigation to the manifest's action, taken by the service worker.
    await laptop.page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    await laptop.page.evaluate((text) => {
      const form = document.createElement("form");
      Object.assign(form, { id: "share-sheet", method: "post", enctype: "multipart/form-data", action: "/share-target" });
      const input = Object.assign(document.createElement("input"), { type: "hidden", name: "text", value: text });
      const files = Object.assign(document.createElement("input"), { type: "file", name: "files" });
      form.append(input, files);
      document.body.append(form);
    }, `shared ${markers.share}`);
    await laptop.page.setInputFiles("#share-sheet input[type=file]", sharedFile);
    const patches: string[] = [];
    laptop.context.on("request", (request) => {
      if (request.method() === "PATCH" && new URL(request.url()).pathname.startsWith("/api/uploads/")) patches.push(request.url());
    });
    await laptop.page.evaluate(() => (document.getElementById("share-sheet") as HTMLFormElement).submit());
    await visible(laptop.page.getByText("Shared to today's messages."), 30_000);
    expect(patches).toHaveLength(2);

    // The CLI signs in by the QR code, which the phone approves, handing it the key.
    const terminal = new Terminal(server.url);
    const login = terminal.spawn(["login"]);
    await login.waitFor(/Code: ([0-9A-Z]{4}-[0-9A-Z]{4})/, { timeoutMs: 30_000 });
    await phone.approvePairing(decodeTerminalQr(login.stdout) ?? "");
    expect(await login.exited, login.stderr).toBe(0);
    const sent = await terminal.run(["send", `from the terminal ${markers.cli}`]);
    expect(sent.code, sent.stderr).toBe(0);
    const cliPath = path.join(dataDir, "..", `${path.basename(dataDir)}-${cliFile.name}`);
    writeFileSync(cliPath, cliFile.buffer);
    const sentFile = await terminal.run(["send", "--file", cliPath]);
    rmSync(cliPath);
    expect(sentFile.code, sentFile.stderr).toBe(0);

    // Every device opens all three: the markers did go through the server.
    await visible(list.getByText(`from the terminal ${markers.cli}`), 30_000);
    await visible(list.getByText(`shared ${markers.share}`));
    const opened = await Promise.all((await phone.messageIds()).map((id) => phone.open(id)));
    const cliFileName = path.basename(cliPath);
    expect(opened.map(({ opened: o }) => (o.state === "opened" ? o.text : o.state)).sort()).toEqual(
      [
        `from the terminal ${markers.cli}`,
        `from the web app ${markers.web}`,
        `shared ${markers.share}`,
        sharedFile.name,
        webFile.name,
        cliFileName,
      ].sort(),
    );
    const files = opened.filter(({ stored }) => stored.type === "file").map(({ stored }) => stored);
    expect(files.map((f) => f.file_key !== undefined)).toEqual([true, true, true]);
    const openedFiles = await Promise.all(files.map((f) => phone.openFile(f.id)));
    for (const sentOne of [sharedFile, webFile, { ...cliFile, name: cliFileName }]) {
      const got = openedFiles.find((f) => f.name === sentOne.name);
      expect(got?.bytes.equals(sentOne.buffer), sentOne.name).toBe(true);
    }
    const listed = await terminal.run(["ls", "--json"]);
    // Every marker but the files' bytes, which only a download opens.
    const bytesMarkers = [markers.fileBytes, markers.webFileBytes, markers.cliFileBytes];
    for (const text of all.filter((m) => !bytesMarkers.includes(m))) expect(listed.stdout).toContain(text);

    // Search runs on each device: what is searched for says what was sent, so it does not go to the server either.
    await laptop.page.getByLabel("Search messages").fill(markers.share);
    await visible(laptop.page.getByRole("link", { name: new RegExp(markers.share) }), 30_000);
    await laptop.page.getByRole("button", { name: "Clear search" }).click();
    const searched = await terminal.run(["search", markers.web]);
    expect(searched.stdout).toContain(`from the web app ${markers.web}`);

    // The phone's push subscription heard of each; its service worker would open them.
    await pushService.waitFor(6, 30_000);
  });

  it("finds no marker in the database, the files folder, Redis, the log or the pushes", async () => {
    const files = filesUnder(dataDir);
    const found = files.flatMap(({ name, bytes }) => findMarkers(all, bytes, name));
    // What the server does keep in clear, the account's email, is found where it keeps it: the search reads the right place.
    const keptInClear = (bytes: Buffer) => findMarkers([email], bytes, "").length > 0;
    if (pgDatabase) {
      const { stdout } = await promisify(execFile)("pg_dump", ["--dbname", pgDatabase.url], {
        maxBuffer: 256 * 1024 * 1024,
      });
      expect(keptInClear(Buffer.from(stdout))).toBe(true);
      found.push(...findMarkers(all, Buffer.from(stdout), "pg_dump"));
      expect(redisTraffic.join("\n")).toContain(phone.userId);
      found.push(...findMarkers(all, Buffer.from(redisTraffic.join("\n")), "Redis MONITOR"));
    } else expect(files.some(({ bytes }) => keptInClear(bytes))).toBe(true);
    expect(server.output()).toContain('"level":20');
    found.push(...findMarkers(all, Buffer.from(server.output()), "the server's log"));
    for (const push of pushService.received) {
      found.push(...findMarkers(all, push.body, "a push body"), ...findMarkers(all, decryptPush(push.body, pushKeys), "a decrypted push"));
    }
    expect(found).toEqual([]);
  });

  it("would have found a marker in any of those forms (the search itself is checked)", () => {
    const text = markers.web;
    for (const shift of [0, 1, 2]) {
      const prefix = Buffer.alloc(shift, 0x41);
      const plain = Buffer.concat([prefix, Buffer.from(text)]);
      expect(findMarkers([text], Buffer.from(`[${plain.toString("base64")}]`), "base64")).not.toEqual([]);
      expect(findMarkers([text], Buffer.from(plain.toString("base64url")), "base64url")).not.toEqual([]);
    }
    expect(findMarkers([text], Buffer.from(`x${text}`, "utf16le"), "UTF-16")).not.toEqual([]);
    expect(findMarkers([text], Buffer.from(Buffer.from(text).toString("hex")), "hex")).not.toEqual([]);
    expect(findMarkers([text], Buffer.from("nothing here"), "none")).toEqual([]);
  });
});
