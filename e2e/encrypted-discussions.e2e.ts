/**
 * Encrypted discussions (issue 45; docs/protocol/encryption.md, "Encrypted discussions") in real Chromium: A creates
 * one (every new discussion is encrypted), B opens the link read from the QR code on A's screen (the key in its
 * fragment, gone from the address bar once read), both exchange texts, the header says "End-to-end encrypted"; a file
 * goes from B to A and downloads opened; C types the ID, waits with a code and is let in by B with that code; C leaves,
 * a remaining device makes the next key, and a text sent after it does not open with the link's old key; D, signed
 * out, opens the new link, registers and joins with its key, reading what came after the rotation and the title sealed
 * again under it. The server's files hold none of the texts, the title, the file or the names chosen (the name C asked
 * to join with is sent before C holds a key: the server sees it).
 */
import { readFileSync } from "node:fs";
import { DISCUSSIONS_API, ROOM_TEXT, ROOMS_API, responseSchemas, SEALED_TEXT, TEXT } from "@daysync/shared";
import { deriveRoomKeys, openRoomMessage, parseRoomLink, sealedRoomMessageOf } from "@daysync/shared/crypto";
import { describe, expect, it } from "vitest";
import { useStartedApp } from "./support/app.ts";
import {
  chooseFiles,
  createDiscussion,
  type Device,
  discussionsNav,
  messageBy,
  messageList,
  newDevice,
  PASSWORD,
  registerViaApi,
  sendMessage,
  uniqueEmail,
  visible,
} from "./support/daysync.ts";
import { filesUnder, findMarkers, marker } from "./support/markers.ts";
import { readQrFromScreen } from "./support/qr.ts";

const app = useStartedApp();

describe("encrypted discussions", () => {
  it("create, join by the QR link and by typed ID with a code, talk both ways, a leave moves the room to a new key; the server keeps no clear text or file", async () => {
    const title = marker("title");
    const names = { a: marker("anna"), b: marker("bert"), d: marker("dora") };
    const cName = "Cora";
    const fileName = `${marker("file")}.txt`;
    const fileText = `${marker("bytes")} day 1: the hike`;
    const texts = [marker("hello"), marker("reply"), marker("to-cora"), marker("after-rotation")];
    const [a, b, c] = (await Promise.all([0, 1, 2].map(() => newDevice(app.browser, app.server.url)))) as [Device, Device, Device];
    await registerViaApi(a, app.server.url, "Anna Account", uniqueEmail("anna"));
    await registerViaApi(b, app.server.url, "Bert Account", uniqueEmail("bert"));
    await registerViaApi(c, app.server.url, "Cora Account", uniqueEmail("cora"));
    await Promise.all([a.page.goto("/dashboard"), b.page.goto("/dashboard"), c.page.goto("/dashboard")]);
    await visible(a.page.getByLabel("Message", { exact: true }), 30_000);

    // A creates it: the share panel opens with the ID, the link and the QR code.
    const share = await createDiscussion(a.page, title, names.a);
    await visible(share.getByRole("img", { name: /QR code/ }));
    const shownId = (await share.getByTestId("discussion-public-id").textContent()) ?? "";
    const joinLink = await readQrFromScreen(a.page);
    const publicId = shownId.replace("-", "");
    expect(joinLink).toMatch(new RegExp(`^${app.server.url}/discussions/join/${publicId}#room=[0-9a-f-]{36}&g=1&k=[A-Za-z0-9_-]{43}$`));
    const linkKey = parseRoomLink(joinLink);
    await share.getByRole("button", { name: "Done" }).click();
    await visible(a.page.getByRole("heading", { name: title }));
    const badge = await visible(a.page.getByRole("main").getByRole("link", { name: SEALED_TEXT.endToEnd, exact: true }));
    expect(await badge.getAttribute("href")).toBe("/privacy#who-can-read");
    await visible(discussionsNav(a.page).getByRole("link", { name: new RegExp(title) }));

    // A link cut short is refused at once; one whose key is for another room is not used; both in the core's words.
    await b.page.goto(joinLink.slice(0, -5));
    await visible(b.page.getByRole("alert").getByText(ROOM_TEXT.linkDamaged), 30_000);
    expect(new URL(b.page.url()).hash).toBe("");
    // (From another page: a change of the fragment alone would not load the join page again.)
    await b.page.goto("/dashboard");
    await b.page.goto(joinLink.replace(linkKey.roomId, crypto.randomUUID()));
    await b.page.getByLabel("Your name in this discussion").fill(names.b);
    await b.page.getByRole("main").getByRole("button", { name: "Join" }).click();
    await visible(b.page.getByRole("alert").getByText(ROOM_TEXT.linkOtherRoom), 30_000);

    // B opens the link: the key leaves the address bar at once; B picks a name and is in.
    await b.page.goto(joinLink);
    await visible(b.page.getByRole("heading", { name: "Join a discussion" }), 30_000);
    expect(new URL(b.page.url()).hash).toBe("");
    await b.page.getByLabel("Your name in this discussion").fill(names.b);
    await b.page.getByRole("main").getByRole("button", { name: "Join" }).click();
    await visible(b.page.getByRole("heading", { name: title }), 30_000);
    await visible(b.page.getByRole("main").getByRole("link", { name: SEALED_TEXT.endToEnd, exact: true }));
    await visible(a.page.getByText("2 members"));

    // Texts both ways, each by its sender's name (opened on the device).
    await sendMessage(a.page, texts[0] as string);
    await visible(messageBy(b.page, names.a, texts[0] as string), 20_000);
    await sendMessage(b.page, texts[1] as string);
    await visible(messageBy(a.page, names.b, texts[1] as string), 20_000);
    await visible(messageList(b.page).getByText(`${names.a} started this discussion`));
    // A file from B, its name and bytes sealed under the room key, reaches A, who downloads it opened.
    await chooseFiles(b.page, [{ name: fileName, mimeType: "text/plain", buffer: Buffer.from(fileText) }]);
    await b.page.getByRole("button", { name: TEXT.send, exact: true }).click();
    const fileRow = messageBy(a.page, names.b, fileName);
    await visible(fileRow, 30_000);
    const [download] = await Promise.all([a.page.waitForEvent("download"), fileRow.getByRole("link", { name: "Download" }).click()]);
    expect(download.suggestedFilename()).toBe(fileName);
    expect(readFileSync(await download.path()).toString()).toBe(fileText);

    // The members see each other's security code, the same on both devices.
    await b.page.getByRole("button", { name: "Members" }).click();
    const bMembers = b.page.getByRole("dialog", { name: "Members" });
    const codeOnB = await bMembers.getByRole("listitem").filter({ hasText: names.a }).getByTestId("member-code").textContent();
    expect(codeOnB).toMatch(/^\d{4} \d{4} \d{4}$/);
    await bMembers.getByRole("button", { name: "Done" }).click();
    await a.page.getByRole("button", { name: "Members" }).click();
    const aMembers = a.page.getByRole("dialog", { name: "Members" });
    expect(await aMembers.getByRole("listitem").filter({ hasText: names.a }).getByTestId("member-code").textContent()).toBe(codeOnB);
    await aMembers.getByRole("button", { name: "Done" }).click();

    // C types the ID: C's device shows a code and waits; B's open page shows who asks, and B lets C in with the code.
    await discussionsNav(c.page).getByLabel("Discussion ID to join").fill(shownId);
    await discussionsNav(c.page).getByRole("button", { name: "Join" }).click();
    await c.page.getByLabel("Your name in this discussion").fill(cName);
    await c.page.getByRole("main").getByRole("button", { name: "Join" }).click();
    await visible(c.page.getByRole("heading", { name: "Waiting for a member to let you in" }), 30_000);
    const code = ((await c.page.getByTestId("join-code").textContent()) ?? "").replace(/\D/g, "");
    expect(code).toMatch(/^\d{6}$/);
    const asking = b.page.getByRole("form", { name: `${cName} wants to join` });
    // Told live (discussion.join_requested), well before the page's slow look for requests.
    await visible(asking, 8_000);
    await asking.getByLabel("Code shown on their device").fill(code);
    await asking.getByRole("button", { name: "Let in" }).click();
    await visible(c.page.getByRole("heading", { name: title }), 30_000);
    await visible(messageBy(c.page, names.a, texts[0] as string), 20_000);
    await visible(a.page.getByText("3 members"), 20_000);
    await sendMessage(a.page, texts[2] as string);
    await visible(messageBy(c.page, names.a, texts[2] as string), 20_000);

    // C leaves: a remaining device makes generation 2 for A and B only; what A sends next is sealed under it.
    await c.page.getByRole("button", { name: "Leave" }).click();
    await c.page.getByRole("dialog", { name: "Leave this discussion?" }).getByRole("button", { name: "Leave" }).click();
    await visible(c.page.getByRole("heading", { name: "You left this discussion." }));
    await visible(a.page.getByText("2 members"), 20_000);
    const roomId = linkKey.roomId;
    await expect
      .poll(
        async () => {
          const res = await a.context.request.get(`${app.server.url}${ROOMS_API.state(roomId)}`);
          return ((await res.json()) as { current_generation: number }).current_generation;
        },
        { timeout: 30_000 },
      )
      .toBe(2);
    await sendMessage(a.page, texts[3] as string);
    await visible(messageBy(b.page, names.a, texts[3] as string), 30_000);
    // The creator's device sealed the title again under generation 2, for whoever joins by a new link.
    await expect
      .poll(async () => {
        const res = await a.context.request.get(`${app.server.url}${ROOMS_API.state(roomId)}`);
        return ((await res.json()) as { sealed_title: string }).sealed_title.split(".")[1];
      })
      .toBe("2");
    await visible(b.page.getByRole("heading", { name: title }));

    // The share panel now gives a link of generation 2. D, signed out, opens it, registers, and lands back on the join
    // screen with the key: D reads what was sent under generation 2 and the title; what came before shows as locked.
    await a.page.getByRole("button", { name: "Share" }).click();
    await visible(a.page.getByRole("dialog").getByRole("img", { name: /QR code/ }));
    const newLink = await readQrFromScreen(a.page);
    expect(newLink).toContain("&g=2&k=");
    await a.page.getByRole("dialog").getByRole("button", { name: "Done" }).click();
    const d = await newDevice(app.browser, app.server.url);
    await d.page.goto(newLink);
    await d.page.waitForURL(/\/login$/);
    expect(new URL(d.page.url()).hash).toBe("");
    await d.page.getByRole("link", { name: TEXT.registerLink }).click();
    await d.page.getByLabel("Name", { exact: true }).fill("Dora Account");
    await d.page.getByLabel("Email", { exact: true }).fill(uniqueEmail("dora"));
    await d.page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await d.page.getByLabel("Confirm password", { exact: true }).fill(PASSWORD);
    await d.page.getByRole("button", { name: TEXT.register }).click();
    await visible(d.page.getByRole("heading", { name: "Join a discussion" }), 30_000);
    await d.page.getByLabel("Your name in this discussion").fill(names.d);
    await d.page.getByRole("main").getByRole("button", { name: "Join" }).click();
    await visible(d.page.getByRole("heading", { name: title }), 30_000);
    await visible(messageBy(d.page, names.a, texts[3] as string), 20_000);
    await visible(messageList(d.page).getByText(SEALED_TEXT.roomLocked).first());
    expect(
      await messageList(d.page)
        .getByText(texts[0] as string)
        .count(),
    ).toBe(0);
    await d.context.close();

    // The link's key (generation 1, which C held too) opens nothing sent after the rotation.
    const listed = await b.context.request.get(`${app.server.url}${DISCUSSIONS_API.messages(roomId)}`);
    const { messages } = responseSchemas.discussionMessages.parse(await listed.json());
    const after = messages.find((m) => m.generation === 2);
    expect(after).toBeDefined();
    if (!after) return;
    const sealed = sealedRoomMessageOf(after);
    const oldKeys = await deriveRoomKeys(linkKey.roomKey, roomId, 1);
    expect(await openRoomMessage(new Map([[1, oldKeys]]), sealed)).toEqual({ state: "locked", generation: 2 });
    const oldKeyAsNew = await deriveRoomKeys(linkKey.roomKey, roomId, 2);
    await expect(openRoomMessage(new Map([[2, oldKeyAsNew]]), sealed)).rejects.toThrow("This message could not be decrypted");
    const first = messages.find((m) => m.generation === 1);
    if (first) {
      const opened = await openRoomMessage(new Map([[1, oldKeys]]), sealedRoomMessageOf(first));
      expect(opened.state).toBe("opened");
    }

    // What the server keeps (database, its WAL, files): none of the texts, the title or the names chosen, in any form.
    const found = filesUnder(app.server.dataDir).flatMap(({ name, bytes }) =>
      findMarkers([title, names.a, names.b, names.d, fileName, fileText, ...texts], bytes, name),
    );
    expect(found).toEqual([]);
    await Promise.all([a.context.close(), b.context.close(), c.context.close()]);
  });
});
