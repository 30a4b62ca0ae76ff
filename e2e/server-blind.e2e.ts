import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { APP_ROUTES, SEALED_TEXT, TEXT } from "@daysync/shared";
import { RECORD_SIZE } from "@daysync/shared/crypto";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Terminal } from "../apps/cli/test/cli-process.ts";
import { decodeTerminalQr } from "../apps/cli/test/terminal-qr.ts";
import {
  decryptPush,
  newSubscriptionKeys,
  type PushServiceDouble,
  startPushServiceDouble,
} from "../apps/server/src/testing/push-service-double.ts";
import type { ServerProcess } from "../apps/server/src/testing/server-process.ts";
import { launchBrowser } from "./support/browser.ts";
import { chooseFiles, type Device, messageList, sendMessage, uniqueEmail, visible } from "./support/daysync.ts";
import { findMarkers, marker } from "./support/markers.ts";
import { keyedAccount, type NodeDevice } from "./support/node-device.ts";
import { startWatchedServer, type WatchedServer } from "./support/watched-server.ts";

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
  let watched: WatchedServer;
  let server: ServerProcess;
  let pushService: PushServiceDouble;
  const pushKeys = newSubscriptionKeys();
  let browser: Browser;
  let phone: NodeDevice;
  let laptop: Device;
  const email = uniqueEmail("blind");

  beforeAll(async () => {
    [pushService, watched, browser] = await Promise.all([startPushServiceDouble(), startWatchedServer(pg, "blind"), launchBrowser()]);
    server = watched.server;
    ({ phone, laptop } = await keyedAccount(browser, server.url, "Blair Blind", email));
    await phone.subscribePush(`${pushService.url}/phone`, pushKeys.json);
  });
  afterAll(async () => {
    await phone?.dispose();
    await browser?.close();
    await watched?.stop();
    await pushService?.close();
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
    const cliDir = mkdtempSync(path.join(tmpdir(), "daysync-blind-cli-"));
    const cliPath = path.join(cliDir, cliFile.name);
    writeFileSync(cliPath, cliFile.buffer);
    const sentFile = await terminal.run(["send", "--file", cliPath]);
    rmSync(cliDir, { recursive: true, force: true });
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
    const kept = await watched.kept();
    const found = kept.flatMap(({ where, bytes }) => findMarkers(all, bytes, where));
    // What the server does keep in clear, the account's email, is found where it keeps it: the search reads the right place.
    const database = kept.filter(({ where }) => where !== "the server's log" && where !== "Redis MONITOR");
    expect(database.some(({ bytes }) => findMarkers([email], bytes, "").length > 0)).toBe(true);
    if (pg) expect(kept.find(({ where }) => where === "Redis MONITOR")?.bytes.toString()).toContain(phone.userId);
    expect(server.output()).toContain('"level":20');
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
