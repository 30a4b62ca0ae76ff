/**
 * A wrong code typed to let someone into an encrypted discussion by typed ID (docs/protocol/encryption.md, "Admission
 * by typed ID"), in real Chromium: the joining device finds the answer wrong and says so to the server, and the
 * member's page shows the refusal within seconds, not after its 30 s wait for a confirmation. The request is closed;
 * the joiner asks again with a new code, and the right one lets them in.
 */
import { ROOM_TEXT } from "@daysync/shared";
import type { Page } from "playwright-core";
import { describe, it } from "vitest";
import { useStartedApp } from "./support/app.ts";
import { createDiscussion, type Device, discussionsNav, newDevice, registerViaApi, uniqueEmail, visible } from "./support/daysync.ts";
import { marker } from "./support/markers.ts";

const app = useStartedApp();

/** The joiner's page asks to join under `name`: the six digits it shows. */
async function askToJoin(page: Page, name: string): Promise<string> {
  await page.getByLabel("Your name in this discussion").fill(name);
  await page.getByRole("main").getByRole("button", { name: "Join" }).click();
  await visible(page.getByRole("heading", { name: "Waiting for a member to let you in" }), 30_000);
  return ((await page.getByTestId("join-code").textContent()) ?? "").replace(/\D/g, "");
}

describe("a wrong code to let someone in", () => {
  it("is told on the member's page within seconds; the joiner asks again and the right code lets them in", async () => {
    const title = marker("title");
    const cName = "Cora";
    const [a, c] = (await Promise.all([0, 1].map(() => newDevice(app.browser, app.server.url)))) as [Device, Device];
    await registerViaApi(a, app.server.url, "Anna Account", uniqueEmail("anna"));
    await registerViaApi(c, app.server.url, "Cora Account", uniqueEmail("cora"));
    await Promise.all([a.page.goto("/dashboard"), c.page.goto("/dashboard")]);
    await visible(a.page.getByLabel("Message", { exact: true }), 30_000);

    const share = await createDiscussion(a.page, title, marker("anna"));
    const shownId = (await share.getByTestId("discussion-public-id").textContent()) ?? "";
    await share.getByRole("button", { name: "Done" }).click();
    await visible(a.page.getByRole("heading", { name: title }));

    await discussionsNav(c.page).getByLabel("Discussion ID to join").fill(shownId);
    await discussionsNav(c.page).getByRole("button", { name: "Join" }).click();
    const code = await askToJoin(c.page, cName);
    const wrong = code === "000000" ? "111111" : "000000";

    // A types a wrong code: the refusal shows well inside the 30 s A's device would otherwise wait.
    const asking = a.page.getByRole("form", { name: `${cName} wants to join` });
    await visible(asking, 8_000);
    await asking.getByLabel("Code shown on their device").fill(wrong);
    await asking.getByRole("button", { name: "Let in" }).click();
    await visible(a.page.getByRole("alert").filter({ hasText: ROOM_TEXT.wrongCode }), 8_000);
    await visible(c.page.getByRole("alert").filter({ hasText: ROOM_TEXT.wrongCode }), 8_000);

    // The request is closed: C asks again, with a new code, and A lets C in with it.
    const second = await askToJoin(c.page, cName);
    const again = a.page.getByRole("form", { name: `${cName} wants to join` });
    await visible(again, 8_000);
    await again.getByLabel("Code shown on their device").fill(second);
    await again.getByRole("button", { name: "Let in" }).click();
    await visible(c.page.getByRole("heading", { name: title }), 30_000);
    await visible(a.page.getByText("2 members"), 20_000);
  });
});
