import { API, SESSION_COOKIE } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { useStartedApp } from "./support/app.ts";
import { type Device, hidden, newDevice, registerViaApi, uniqueEmail, visible } from "./support/daysync.ts";

const app = useStartedApp();

describe("live connection: a tab over the socket cap", () => {
  let device: Device;
  const held: WebSocket[] = [];

  beforeAll(async () => {
    device = await newDevice(app.browser, app.server.url);
    await registerViaApi(device, app.server.url, "Many Tabs", uniqueEmail("tabs"));
  });
  afterAll(() => {
    for (const ws of held) ws.close();
  });

  it("shows Offline and does not retry at once when the session's live sockets are all taken, and recovers", async () => {
    const cookie = (await device.context.cookies()).find((c) => c.name === SESSION_COOKIE);
    // Eight other "tabs" of this session hold every live socket it may have.
    for (let i = 0; i < 8; i++) {
      const ws = new WebSocket(`${app.server.url.replace("http", "ws")}${API.live}`, {
        headers: { cookie: `${SESSION_COOKIE}=${cookie?.value}` },
      });
      await new Promise((resolve, reject) => {
        ws.once("open", resolve);
        ws.once("error", reject);
      });
      held.push(ws);
    }
    let attempts = 0;
    device.page.on("websocket", (ws) => {
      if (ws.url().endsWith(API.live)) attempts += 1;
    });

    await device.page.goto("/dashboard");
    const offline = device.page.getByRole("status").filter({ hasText: "Offline" });
    await visible(offline);
    // Without a special case the backoff would try again after 0.25–0.5 s, 0.5–1 s, 1–2 s, 2–4 s…
    await device.page.waitForTimeout(6_000);
    expect(attempts).toBe(1);

    // A place frees up; coming back online (or showing the tab) tries again at once and syncs.
    const freed = held.pop();
    await new Promise((resolve) => {
      freed?.once("close", resolve);
      freed?.close();
    });
    await device.context.setOffline(true);
    await device.context.setOffline(false);
    await hidden(offline);
    expect(attempts).toBe(2);
  });
});
