/**
 * Discussions (issue 13) in real Chromium: A has one in clear (made before discussions were encrypted), B joins by typing its ID into the sidebar's Join field,
 * they exchange a text and a file live, B never sees A's email; C opens the join link read from the QR code on
 * A's screen while signed out, registers and lands back on the join screen; A ends it ("You ended this discussion")
 * and B's open view says so. Own messages sit on the other side; joins, leaves and removals show as lines.
 */
import { API, DISCUSSION_ROUTES, DISCUSSIONS_API, responseSchemas, SEALED_TEXT, TEXT } from "@daysync/shared";
import { describe, expect, it } from "vitest";
import { useStartedApp } from "./support/app.ts";
import {
  chooseFiles,
  type Device,
  discussionsNav,
  hidden,
  messageBy,
  messageList,
  newDevice,
  PASSWORD,
  registerViaApi,
  sendMessage,
  setPlanByOperator,
  uniqueEmail,
  visible,
} from "./support/daysync.ts";
import { readQrFromScreen } from "./support/qr.ts";

const app = useStartedApp();

/** A message of the open discussion with its author's label. */

describe("discussions", () => {
  it("one in clear keeps working: join by ID, talk and send a file live, join by the QR link after registering, end", async () => {
    const aEmail = uniqueEmail("ann");
    const bEmail = uniqueEmail("ben");
    const a: Device = await newDevice(app.browser, app.server.url);
    const b: Device = await newDevice(app.browser, app.server.url);
    await registerViaApi(a, app.server.url, "Ann Author", aEmail);
    await registerViaApi(b, app.server.url, "Ben Reader", bEmail);
    // A discussion in clear, as made before discussions were encrypted (the app now makes every new one encrypted:
    // e2e/encrypted-discussions.e2e.ts); it keeps working, labelled as before, until it ends.
    const created = await a.context.request.post(`${app.server.url}${DISCUSSIONS_API.list}`, {
      data: { title: "Trip planning", display_name: "Annie" },
    });
    expect(created.status()).toBe(201);
    const { discussion: made } = responseSchemas.discussion.parse(await created.json());
    await Promise.all([a.page.goto(DISCUSSION_ROUTES.one(made.id)), b.page.goto("/dashboard")]);

    // Its share panel: the ID, the link, the QR code.
    await a.page.getByRole("button", { name: "Share" }).click();
    const share = a.page.getByRole("dialog", { name: "Share “Trip planning”" });
    await visible(share);
    await visible(share.getByRole("img", { name: /QR code/ }));
    await visible(share.getByRole("button", { name: "Copy ID" }));
    await visible(share.getByRole("button", { name: "Copy link" }));
    const shownId = (await share.getByTestId("discussion-public-id").textContent()) ?? "";
    expect(shownId).toMatch(/^[0-9A-Z]{5}-[0-9A-Z]{5}$/);
    await share.getByRole("button", { name: "Done" }).click();
    await hidden(share);
    await visible(a.page.getByRole("heading", { name: "Trip planning" }));
    await visible(discussionsNav(a.page).getByRole("link", { name: /Trip planning/ }));
    // Unlike the person's own days and an encrypted discussion, a discussion in clear says the server can read it.
    const plain = await visible(a.page.getByRole("main").getByRole("link", { name: SEALED_TEXT.notEndToEnd, exact: true }));
    expect(await plain.getAttribute("href")).toBe("/privacy#who-can-read");

    // B: the ID typed as read out (lower case, a space instead of the hyphen), then a name.
    await discussionsNav(b.page).getByLabel("Discussion ID to join").fill(shownId.toLowerCase().replace("-", " "));
    await discussionsNav(b.page).getByRole("button", { name: "Join" }).click();
    await visible(b.page.getByRole("heading", { name: "Join a discussion" }));
    await b.page.getByLabel("Your name in this discussion").fill("Benny");
    await b.page.getByRole("main").getByRole("button", { name: "Join" }).click();
    await visible(b.page.getByRole("heading", { name: "Trip planning" }));
    await visible(a.page.getByText("2 members"));
    // Who came shows as a line in the conversation, live on A's screen, and for B on joining.
    await visible(messageList(a.page).getByText("Benny joined"));
    await visible(messageList(b.page).getByText("Annie started this discussion"));
    await visible(messageList(b.page).getByText("You joined"));

    // Text both ways, live, each labelled with its author's name for this discussion.
    await sendMessage(a.page, "Hello from Annie");
    await visible(messageBy(b.page, "Annie", "Hello from Annie"));
    await visible(messageBy(a.page, "You", "Hello from Annie"));
    await sendMessage(b.page, "Hi Annie, Benny here");
    await visible(messageBy(a.page, "Benny", "Hi Annie, Benny here"));
    // One's own messages sit on the other side from the others'.
    const mine = await messageBy(a.page, "You", "Hello from Annie").locator(".bubble").boundingBox();
    const theirs = await messageBy(a.page, "Benny", "Hi Annie, Benny here").locator(".bubble").boundingBox();
    expect(mine && theirs && mine.x + mine.width > theirs.x + theirs.width && mine.x > theirs.x).toBe(true);

    // A file from B reaches A.
    await chooseFiles(b.page, [{ name: "itinerary.txt", mimeType: "text/plain", buffer: Buffer.from("day 1: hike") }]);
    await b.page.getByRole("button", { name: TEXT.send, exact: true }).click();
    await visible(messageBy(a.page, "Benny", "itinerary.txt"), 20_000);
    await visible(messageBy(b.page, "You", "itinerary.txt"), 20_000);

    // B sees A only as "Annie": never the email, nor the account's name.
    const bHtml = await b.page.content();
    expect(bHtml).not.toContain(aEmail);
    expect(bHtml).not.toContain("Ann Author");
    await b.page.getByRole("button", { name: "Members" }).click();
    const members = b.page.getByRole("dialog", { name: "Members" });
    await visible(members.getByText("Annie"));
    await visible(members.getByText("Benny (you)"));
    expect(await members.innerText()).not.toContain(aEmail);
    await members.getByRole("button", { name: "Done" }).click();

    // Unread: A is on a day page when B writes; the badge shows, and goes once A opens the discussion.
    await a.page.getByRole("button", { name: TEXT.today }).click();
    await a.page.waitForURL(/\/dashboard$/);
    await sendMessage(b.page, "Are you there?");
    const link = discussionsNav(a.page).getByRole("link", { name: /Trip planning/ });
    await visible(link.getByText("1 unread"));
    await link.click();
    await visible(messageBy(a.page, "Benny", "Are you there?"));
    await hidden(link.getByText(/unread/));

    // C: signed out, opens the link read from the QR code on A's screen.
    await a.page.getByRole("button", { name: "Share" }).click();
    await visible(a.page.getByRole("dialog").getByRole("img", { name: /QR code/ }));
    const joinLink = await readQrFromScreen(a.page);
    expect(joinLink).toBe(`${app.server.url}/discussions/join/${shownId.replace("-", "")}`);
    await a.page.getByRole("dialog").getByRole("button", { name: "Done" }).click();

    const c = await newDevice(app.browser, app.server.url, { width: 412, height: 860 });
    await c.page.goto(joinLink);
    await c.page.waitForURL(/\/login$/);
    // The link signs nothing in.
    expect((await c.context.request.get(`${app.server.url}${API.me}`)).status()).toBe(401);
    await visible(c.page.getByText("to join the discussion you were invited to"));
    await c.page.getByRole("link", { name: TEXT.registerLink }).click();
    await c.page.getByLabel("Name", { exact: true }).fill("Cat Newcomer");
    await c.page.getByLabel("Email", { exact: true }).fill(uniqueEmail("cat"));
    await c.page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await c.page.getByLabel("Confirm password", { exact: true }).fill(PASSWORD);
    await c.page.getByRole("button", { name: TEXT.register }).click();
    await visible(c.page.getByRole("heading", { name: "Join a discussion" }));
    await c.page.getByLabel("Your name in this discussion").fill("Cat");
    await c.page.getByRole("main").getByRole("button", { name: "Join" }).click();
    await visible(c.page.getByRole("heading", { name: "Trip planning" }));
    await visible(messageBy(c.page, "Annie", "Hello from Annie"));
    await visible(a.page.getByText("3 members"));

    // A ends it: B's open view says so, and it leaves B's sidebar.
    await a.page.getByRole("button", { name: "End discussion" }).click();
    const confirm = a.page.getByRole("dialog", { name: "End this discussion?" });
    await confirm.getByRole("button", { name: "End discussion" }).click();
    await visible(a.page.getByRole("heading", { name: "You ended this discussion." }));
    await visible(b.page.getByRole("heading", { name: "This discussion has ended." }));
    await visible(b.page.getByText("Its creator ended it"));
    await visible(c.page.getByRole("heading", { name: "This discussion has ended." }));
    await hidden(discussionsNav(b.page).getByRole("link", { name: /Trip planning/ }));
    await visible(discussionsNav(b.page).getByText("No discussions yet"));

    await Promise.all([a.context.close(), b.context.close(), c.context.close()]);
  });

  it("the owner renames it and removes a member, who is told so; another member leaves", async () => {
    const [a, b, c] = await Promise.all([0, 1, 2].map(() => newDevice(app.browser, app.server.url)));
    if (!a || !b || !c) throw new Error("three devices expected");
    await registerViaApi(a, app.server.url, "Ann Owner", uniqueEmail("owner"));
    await registerViaApi(b, app.server.url, "Bo Removed", uniqueEmail("removed"));
    await registerViaApi(c, app.server.url, "Cy Leaver", uniqueEmail("leaver"));
    const created = await a.context.request.post(`${app.server.url}${DISCUSSIONS_API.list}`, {
      data: { title: "Team lunch", display_name: "Ann" },
    });
    expect(created.status()).toBe(201);
    const { discussion } = responseSchemas.discussion.parse(await created.json());
    for (const [device, name] of [
      [b, "Bo"],
      [c, "Cy"],
    ] as const) {
      const joined = await device.context.request.post(`${app.server.url}${DISCUSSIONS_API.join(discussion.public_id)}`, {
        data: { display_name: name },
      });
      expect(joined.ok()).toBe(true);
    }
    const path = DISCUSSION_ROUTES.one(discussion.id);
    await Promise.all([a.page.goto(path), b.page.goto(path), c.page.goto(path)]);
    await visible(a.page.getByText("3 members"));
    await visible(messageList(a.page).getByText("Bo joined"));
    await visible(messageList(a.page).getByText("Cy joined"));

    // Rename: every open view shows the new title.
    await a.page.getByRole("button", { name: "Rename" }).click();
    const rename = a.page.getByRole("dialog", { name: "Rename discussion" });
    await rename.getByLabel("Title").fill("Team lunch on Friday");
    await rename.getByRole("button", { name: "Save" }).click();
    await visible(b.page.getByRole("heading", { name: "Team lunch on Friday" }));
    await visible(discussionsNav(c.page).getByRole("link", { name: /Team lunch on Friday/ }));

    // Remove Bo, after a confirmation: Bo's open view says so and the discussion leaves Bo's sidebar.
    await a.page.getByRole("button", { name: "Members" }).click();
    await a.page.getByRole("dialog", { name: "Members" }).getByRole("button", { name: "Remove Bo" }).click();
    await a.page.getByRole("dialog", { name: "Remove Bo?" }).getByRole("button", { name: "Remove" }).click();
    await visible(b.page.getByRole("heading", { name: "You were removed from this discussion." }));
    await hidden(discussionsNav(b.page).getByRole("link", { name: /Team lunch/ }));
    await visible(a.page.getByText("2 members"));
    await visible(messageList(a.page).getByText("Bo was removed"));
    await visible(messageList(c.page).getByText("Bo was removed"));

    // Cy leaves, after a confirmation.
    await c.page.getByRole("button", { name: "Leave" }).click();
    await c.page.getByRole("dialog", { name: "Leave this discussion?" }).getByRole("button", { name: "Leave" }).click();
    await visible(c.page.getByRole("heading", { name: "You left this discussion." }));
    await visible(a.page.getByText("1 member", { exact: true }));
    await visible(messageList(a.page).getByText("Cy left"));
    await Promise.all([a.context.close(), b.context.close(), c.context.close()]);
  });

  it("a message typed offline waits in the outbox and reaches the others when back online; a Premium member extends", async () => {
    const ownerEmail = uniqueEmail("premium");
    const [a, b] = await Promise.all([newDevice(app.browser, app.server.url), newDevice(app.browser, app.server.url)]);
    await registerViaApi(a, app.server.url, "Pat Premium", ownerEmail);
    await registerViaApi(b, app.server.url, "Otto Offline", uniqueEmail("offline"));
    const created = await a.context.request.post(`${app.server.url}${DISCUSSIONS_API.list}`, {
      data: { title: "Tunnel talk", display_name: "Pat" },
    });
    const { discussion } = responseSchemas.discussion.parse(await created.json());
    const joined = await b.context.request.post(`${app.server.url}${DISCUSSIONS_API.join(discussion.public_id)}`, {
      data: { display_name: "Otto" },
    });
    expect(joined.ok()).toBe(true);
    const path = DISCUSSION_ROUTES.one(discussion.id);
    await Promise.all([a.page.goto(path), b.page.goto(path)]);
    await visible(b.page.getByRole("heading", { name: "Tunnel talk" }));

    await b.context.setOffline(true);
    await sendMessage(b.page, "written in the tunnel");
    await visible(messageList(b.page).getByText("Pending — waiting for the connection"));
    await b.page.waitForTimeout(500);
    expect(await messageList(a.page).getByText("written in the tunnel").count()).toBe(0);
    await b.context.setOffline(false);
    await visible(messageBy(a.page, "Otto", "written in the tunnel"), 20_000);
    await hidden(messageList(b.page).getByText(/Pending/), 20_000);
    // Only one's own messages (or, for the creator, any) can be deleted; the deletion reaches every member.
    expect(await messageBy(a.page, "Otto", "written in the tunnel").getByRole("button", { name: "Delete message" }).count()).toBe(1);
    await messageBy(b.page, "You", "written in the tunnel").getByRole("button", { name: "Delete message" }).click();
    await hidden(messageList(a.page).getByText("written in the tunnel"), 20_000);

    await setPlanByOperator(app.server.dataDir, ownerEmail, "premium");
    await a.page.reload();
    await a.page.getByRole("button", { name: "Extend" }).click();
    await a.page.getByRole("dialog", { name: "Extend discussion" }).getByRole("button", { name: "Extend by 7 days" }).click();
    await visible(a.page.getByText(/Ends in 13 d 23 h|Ends in 14 d/));
    // Every member sees the new end.
    await visible(b.page.getByText(/Ends in 13 d 23 h|Ends in 14 d/));
    await Promise.all([a.context.close(), b.context.close()]);
  });

  it("a wrong ID is refused in the Join field, and an unknown one says no such discussion", async () => {
    const d = await newDevice(app.browser, app.server.url);
    await registerViaApi(d, app.server.url, "Dee Typo", uniqueEmail("dee"));
    await d.page.goto("/dashboard");
    // The day has opened (and its message box taken the focus) before the field is typed in.
    await visible(d.page.getByLabel("Message", { exact: true }), 30_000);
    const field = discussionsNav(d.page).getByLabel("Discussion ID to join");
    await field.fill("hello");
    expect(await field.inputValue()).toBe("hello");
    await field.press("Enter");
    await visible(discussionsNav(d.page).getByText("An ID is 10 letters and digits, like ABCDE-23456."), 30_000);
    await field.fill("ZZZZZ-ZZZZZ");
    await field.press("Enter");
    await d.page.getByLabel("Your name in this discussion").fill("Dee");
    await d.page.getByRole("main").getByRole("button", { name: "Join" }).click();
    await visible(d.page.getByRole("alert").getByText(/No discussion has this ID/));
    await d.context.close();
  });

  it("a Free member is told why Extend is not available, with the way to the plans", async () => {
    const e = await newDevice(app.browser, app.server.url);
    await registerViaApi(e, app.server.url, "Eve Free", uniqueEmail("eve"));
    await e.page.goto("/discussions/new");
    await e.page.getByLabel("Title", { exact: true }).fill("Short one");
    await e.page.getByLabel("Your name in this discussion").fill("Eve");
    await e.page.getByRole("button", { name: "Create discussion" }).click();
    await e.page.getByRole("dialog").getByRole("button", { name: "Done" }).click();
    await visible(e.page.getByText(/Ends in 6 d 23 h|Ends in 7 d/));
    await e.page.getByRole("button", { name: "Extend" }).click();
    const dialog = e.page.getByRole("dialog", { name: "Extend discussion" });
    await visible(dialog.getByText("Extending needs Premium."));
    await dialog.getByRole("link", { name: "See the plans" }).click();
    await e.page.waitForURL(/\/dashboard\/plan$/);
    await e.context.close();
  });
});
