import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  API,
  DISCUSSIONS_API,
  type PushPayload,
  pushPayloadSchema,
  ROOMS_API,
  responseSchemas,
  SEALED_TEXT,
  SESSION_COOKIE,
  TEXT,
} from "@daysync/shared";
import { deriveRoomKeys, openRoomMessage, parseRoomLink, sealedRoomMessageOf } from "@daysync/shared/crypto";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import {
  decryptPush,
  newSubscriptionKeys,
  type PushServiceDouble,
  startPushServiceDouble,
} from "../apps/server/src/testing/push-service-double.ts";
import type { ServerProcess } from "../apps/server/src/testing/server-process.ts";
import { twoReadingDevices } from "./support/approval.ts";
import { launchBrowser } from "./support/browser.ts";
import {
  chooseFiles,
  createDiscussion,
  type Device,
  discussionsNav,
  messageBy,
  messageList,
  newDevice,
  registerViaApi,
  sendMessage,
  uniqueEmail,
  visible,
} from "./support/daysync.ts";
import { findMarkers, marker } from "./support/markers.ts";
import { readQrFromScreen } from "./support/qr.ts";
import { startWatchedServer, type WatchedServer } from "./support/watched-server.ts";

const FILE_SIZE = 20 * 1024 * 1024;

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

/**
 * 20 MB whose every line carries `bytesMarker`, so any stored copy of a record in clear would show it; written to
 * `folder` (outside the server's), as the browser takes a file on disk at once where one sent over CDP took 30 s.
 */
function markedFile(folder: string, name: string, bytesMarker: string) {
  const line = Buffer.from(`${bytesMarker}\n`);
  const buffer = Buffer.alloc(FILE_SIZE);
  for (let at = 0; at < FILE_SIZE; at += line.length) line.copy(buffer, at);
  const file = path.join(folder, name);
  writeFileSync(file, buffer);
  return { name, path: file, hash: sha256(buffer) };
}

/** A live socket opened with a session cookie and resumed from the start, keeping every frame it is sent. */
async function liveWith(url: string, cookie: string) {
  const frames: string[] = [];
  const socket = new WebSocket(`${url.replace("http", "ws")}${API.live}`, { headers: { cookie: `${SESSION_COOKIE}=${cookie}` } });
  socket.on("message", (raw) => frames.push(String(raw)));
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("unexpected-response", (_req, res) => reject(new Error(`live refused: ${res.statusCode}`)));
    socket.once("error", reject);
  });
  socket.send(JSON.stringify({ type: "resume", since: 0 }));
  await expect.poll(() => frames.some((f) => f.includes('"type":"ready"')), { timeout: 15_000 }).toBe(true);
  return { frames, close: () => socket.close() };
}

describe.each([
  { engine: "SQLite", pg: false },
  { engine: "PostgreSQL and Redis", pg: true },
])("an encrypted discussion of four ($engine)", ({ pg }) => {
  const title = marker("room-title");
  const names = { a: marker("ann"), b: marker("ben"), c: marker("cal") };
  // Typed before D holds a key, so told to the server; the one name that is not a marker.
  const dName = "Dee";
  const texts = { fromA: marker("from-a"), fromD: marker("from-d"), afterRemoval: marker("after-removal") };
  const bytesMarkers = { fromB: marker("b-bytes"), fromA: marker("a-bytes") };
  const filesDir = mkdtempSync(path.join(tmpdir(), "daysync-journey-files-"));
  const files = {
    fromB: markedFile(filesDir, `${marker("b-file")}.txt`, bytesMarkers.fromB),
    fromA: markedFile(filesDir, `${marker("a-file")}.txt`, bytesMarkers.fromA),
  };
  const all = [title, ...Object.values(names), ...Object.values(texts), files.fromB.name, files.fromA.name, ...Object.values(bytesMarkers)];
  let roomId = "";

  let watched: WatchedServer;
  let server: ServerProcess;
  let pushService: PushServiceDouble;
  const pushKeys = newSubscriptionKeys();
  let browser: Browser;
  let people: Record<"a" | "b" | "c" | "d", Device>;
  /** B's second device, approved by B's first before B joins: it reads the room through B's account key. */
  let bSecond: Device;

  beforeAll(async () => {
    [pushService, watched, browser] = await Promise.all([startPushServiceDouble(), startWatchedServer(pg, "journey"), launchBrowser()]);
    server = watched.server;
    const [b, second] = await twoReadingDevices(browser, server.url, { name: "Person B", email: uniqueEmail("b") });
    const [a, c, d] = (await Promise.all([0, 1, 2].map(() => newDevice(browser, server.url)))) as [Device, Device, Device];
    people = { a, b, c, d };
    bSecond = second;
    await Promise.all(
      Object.entries({ a, c, d }).map(([who, device]) =>
        registerViaApi(device, server.url, `Person ${who.toUpperCase()}`, uniqueEmail(who)),
      ),
    );
  });
  afterAll(async () => {
    await browser?.close();
    await watched?.stop();
    await pushService?.close();
    rmSync(filesDir, { recursive: true, force: true });
  });

  it("joined by link, QR and typed ID; texts and a 20 MB file both ways; a removed member gets nothing new; pushes sealed", async () => {
    const { a, b, c, d } = people;
    await Promise.all(Object.values(people).map((p) => p.page.goto("/dashboard")));
    await visible(a.page.getByLabel("Message", { exact: true }), 30_000);

    const share = await createDiscussion(a.page, title, names.a);
    await visible(share.getByRole("img", { name: /QR code/ }), 30_000);
    const shownId = (await share.getByTestId("discussion-public-id").textContent()) ?? "";
    const link = (await share.getByText(/\/discussions\/join\//).textContent()) ?? "";
    const qrLink = await readQrFromScreen(a.page);
    expect(qrLink).toBe(link);
    const linkKey = parseRoomLink(link);
    roomId = linkKey.roomId;
    await share.getByRole("button", { name: "Done" }).click();

    // B opens the link, C the QR code's: each picks a name and is in.
    for (const [device, name, joinLink] of [
      [b, names.b, link],
      [c, names.c, qrLink],
    ] as const) {
      await device.page.goto(joinLink);
      await device.page.getByLabel("Your name in this discussion").fill(name);
      await device.page.getByRole("main").getByRole("button", { name: "Join" }).click();
      await visible(device.page.getByRole("heading", { name: title }), 30_000);
    }
    // D types the ID and waits with a code; B's page shows who asks, and B lets D in with that code.
    await discussionsNav(d.page).getByLabel("Discussion ID to join").fill(shownId);
    await discussionsNav(d.page).getByRole("button", { name: "Join" }).click();
    await d.page.getByLabel("Your name in this discussion").fill(dName);
    await d.page.getByRole("main").getByRole("button", { name: "Join" }).click();
    await visible(d.page.getByRole("heading", { name: "Waiting for a member to let you in" }), 30_000);
    const code = ((await d.page.getByTestId("join-code").textContent()) ?? "").replace(/\D/g, "");
    const asking = b.page.getByRole("form", { name: `${dName} wants to join` });
    await visible(asking, 30_000);
    await asking.getByLabel("Code shown on their device").fill(code);
    await asking.getByRole("button", { name: "Let in" }).click();
    await visible(d.page.getByRole("heading", { name: title }), 30_000);
    await visible(a.page.getByText("4 members"), 30_000);
    for (const p of [b, c, d]) await visible(p.page.getByRole("main").getByRole("link", { name: SEALED_TEXT.endToEnd, exact: true }));

    // Every member's push service hears of what the others send.
    for (const [who, device] of Object.entries(people)) {
      const subscribed = await device.context.request.post(`${server.url}/api/push/subscriptions`, {
        data: { endpoint: `${pushService.url}/push/${who}`, expirationTime: null, keys: pushKeys.json },
      });
      expect(subscribed.status()).toBe(201);
    }

    // Texts both ways.
    await sendMessage(a.page, texts.fromA);
    for (const p of [b, c, d]) await visible(messageBy(p.page, names.a, texts.fromA), 30_000);
    await sendMessage(d.page, texts.fromD);
    for (const p of [a, b, c]) await visible(messageBy(p.page, dName, texts.fromD), 30_000);

    // A 20 MB file from B to the others, and one from A: each downloads opened, byte for byte.
    for (const [from, fromName, file, to] of [
      [b, names.b, files.fromB, a],
      [a, names.a, files.fromA, d],
    ] as const) {
      await chooseFiles(from.page, file.path);
      await from.page.getByRole("button", { name: TEXT.send, exact: true }).click();
      const row = messageBy(to.page, fromName, file.name);
      await visible(row, 120_000);
      const [download] = await Promise.all([
        to.page.waitForEvent("download", { timeout: 120_000 }),
        row.getByRole("link", { name: "Download" }).click(),
      ]);
      expect(download.suggestedFilename()).toBe(file.name);
      expect(sha256(readFileSync(await download.path()))).toBe(file.hash);
    }

    // C, before being removed: its session cookie and a live socket opened with it.
    const cCookie = (await c.context.cookies()).find((k) => k.name === SESSION_COOKIE)?.value ?? "";
    const cHttp = (pathname: string) => fetch(`${server.url}${pathname}`, { headers: { cookie: `${SESSION_COOKIE}=${cCookie}` } });
    expect((await cHttp(DISCUSSIONS_API.messages(roomId))).status).toBe(200);
    const cSocket = await liveWith(server.url, cCookie);

    // A removes C: a remaining device makes generation 2 for A, B and D only.
    await a.page.getByRole("button", { name: "Members" }).click();
    await a.page
      .getByRole("dialog", { name: "Members" })
      .getByRole("button", { name: `Remove ${names.c}` })
      .click();
    await a.page
      .getByRole("dialog", { name: `Remove ${names.c}?` })
      .getByRole("button", { name: "Remove" })
      .click();
    await visible(a.page.getByText("3 members"), 30_000);
    await a.page.getByRole("dialog", { name: "Members" }).getByRole("button", { name: "Done" }).click();
    await expect
      .poll(
        async () => {
          const res = await a.context.request.get(`${server.url}${ROOMS_API.state(roomId)}`);
          return ((await res.json()) as { current_generation: number }).current_generation;
        },
        { timeout: 30_000 },
      )
      .toBe(2);
    await sendMessage(a.page, texts.afterRemoval);
    for (const p of [b, d]) await visible(messageBy(p.page, names.a, texts.afterRemoval), 30_000);

    const listed = await b.context.request.get(`${server.url}${DISCUSSIONS_API.messages(roomId)}`);
    const { messages } = responseSchemas.discussionMessages.parse(await listed.json());
    const after = messages.find((m) => m.generation === 2);
    if (!after) throw new Error("no message of generation 2");

    // C's old cookie: refused over HTTP, and no word of the new message on the socket it had or on a new one.
    for (const pathname of [DISCUSSIONS_API.messages(roomId), ROOMS_API.state(roomId), DISCUSSIONS_API.message(roomId, after.id)]) {
      const res = await cHttp(pathname);
      expect(res.status, pathname).toBeGreaterThanOrEqual(400);
      expect(res.status, pathname).toBeLessThan(500);
      expect(JSON.stringify(await res.json())).not.toContain(after.content);
    }
    const cAgain = await liveWith(server.url, cCookie);
    // B's own socket heard of it, so C's would have by now.
    await new Promise((r) => setTimeout(r, 2_000));
    for (const frames of [cSocket.frames, cAgain.frames]) {
      expect(frames.filter((f) => f.includes(after.id) || f.includes(after.content))).toEqual([]);
    }
    cSocket.close();
    cAgain.close();
    expect(await messageList(c.page).getByText(texts.afterRemoval).count()).toBe(0);

    // C's old key (the QR link's, generation 1) does not open it, nor does it as a key of generation 2.
    const sealed = sealedRoomMessageOf(after);
    expect(await openRoomMessage(new Map([[1, await deriveRoomKeys(linkKey.roomKey, roomId, 1)]]), sealed)).toEqual({
      state: "locked",
      generation: 2,
    });
    await expect(openRoomMessage(new Map([[2, await deriveRoomKeys(linkKey.roomKey, roomId, 2)]]), sealed)).rejects.toThrow(
      "This message could not be decrypted",
    );

    // B's other device reads the room, before and after the new key, through B's account key alone.
    await bSecond.page.goto(`/discussions/${roomId}`);
    await visible(bSecond.page.getByRole("heading", { name: title }), 30_000);
    for (const [author, text] of [
      [names.a, texts.fromA],
      [dName, texts.fromD],
      [names.a, texts.afterRemoval],
    ] as const)
      await visible(messageBy(bSecond.page, author, text), 30_000);

    // B's own file, sent from the other device (shown as B's own, without B's name).
    await visible(messageList(bSecond.page).getByRole("listitem").filter({ hasText: files.fromB.name }), 30_000);

    // The pushes: one for each other member's message, each with the sealed preview only.
    await pushService.waitFor(1, 30_000);
    const payloads = pushService.received.map((p) => pushPayloadSchema.parse(JSON.parse(decryptPush(p.body, pushKeys).toString("utf8"))));
    const created = payloads.filter((p): p is Extract<PushPayload, { kind: "message.created" }> => p.kind === "message.created");
    expect(created.length).toBeGreaterThanOrEqual(3);
    for (const push of created) {
      expect(push.discussion_id).toBe(roomId);
      expect([push.title, push.body]).toEqual(["", ""]);
      expect(push.room?.preview).toMatch(/\./);
    }
  });

  it("finds no title, text, file name, file bytes or display name in the database, files, Redis, the log or the pushes", async () => {
    const kept = await watched.kept();
    const found = kept.flatMap(({ where, bytes }) => findMarkers(all, bytes, where));
    // What the server is told in clear, the name D asked to join with, is found where it is kept: the search reads the right place.
    const database = kept.filter(({ where }) => where !== "the server's log" && where !== "Redis MONITOR");
    expect(database.some(({ bytes }) => bytes.includes(Buffer.from(`"${dName}"`)) || bytes.includes(Buffer.from(dName)))).toBe(true);
    if (pg) expect(kept.find(({ where }) => where === "Redis MONITOR")?.bytes.toString()).toContain(roomId);
    expect(server.output()).toContain('"level":20');
    for (const push of pushService.received) {
      found.push(...findMarkers(all, push.body, "a push body"), ...findMarkers(all, decryptPush(push.body, pushKeys), "a decrypted push"));
    }
    expect(found).toEqual([]);
  });
});
