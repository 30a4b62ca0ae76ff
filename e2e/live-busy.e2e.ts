/**
 * A server taking live sockets at its pace (LIVE_ACCEPT_PER_SECOND, close code 1013) is busy, not gone: the page says
 * so instead of "You're offline", still sends over HTTP, and joins when its turn comes.
 */
import { API, LIVE_BUSY_TEXT, SESSION_COOKIE } from "@daysync/shared";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { useStartedApp } from "./support/app.ts";
import { hidden, messageList, newDevice, nothingPending, registerViaApi, sendMessage, uniqueEmail, visible } from "./support/daysync.ts";

const app = useStartedApp({ LIVE_ACCEPT_PER_SECOND: "1" });

/** Another device of another account asks for a socket every 10 ms, so the one a second the server takes is nearly always its. */
async function takeEveryTurn(): Promise<() => void> {
  const other = await newDevice(app.browser, app.server.url);
  await registerViaApi(other, app.server.url, "Crowd", uniqueEmail("crowd"));
  const session = (await other.context.cookies()).find((c) => c.name === SESSION_COOKIE);
  const url = `${app.server.url.replace("http", "ws")}${API.live}`;
  const timer = setInterval(() => {
    const socket = new WebSocket(url, { headers: { cookie: `${SESSION_COOKIE}=${session?.value}` } });
    socket.on("open", () => socket.close());
    socket.on("error", () => undefined);
  }, 10);
  return () => {
    clearInterval(timer);
    void other.context.close();
  };
}

describe("live connection: a server taking sockets at its pace", () => {
  it("says the server is busy rather than offline, sends over HTTP meanwhile, and joins once there is room", async () => {
    const device = await newDevice(app.browser, app.server.url);
    await registerViaApi(device, app.server.url, "Busy Day", uniqueEmail("busy"));
    const stop = await takeEveryTurn();
    try {
      await device.page.goto("/dashboard");
      const status = device.page.getByRole("status").filter({ hasText: LIVE_BUSY_TEXT });
      // A socket may still slip in between the crowd's (about one load in four): the page is loaded again until turned away.
      for (let load = 1; load < 6; load++) {
        if (
          await status.waitFor({ timeout: 12_000 }).then(
            () => true,
            () => false,
          )
        )
          break;
        await device.page.reload();
      }
      await visible(status);
      expect(await device.page.getByRole("status").filter({ hasText: "offline" }).count()).toBe(0);

      await sendMessage(device.page, "sent while the server was busy");
      await nothingPending(device.page, 30_000);
      await visible(messageList(device.page).getByText("sent while the server was busy"));
      const stored = await device.context.request.get(`${app.server.url}/api/messages?limit=10`);
      expect(((await stored.json()) as { messages: unknown[] }).messages).toHaveLength(1);
    } finally {
      stop();
    }
    // Its next try (5 to 10 s later) finds room.
    await hidden(device.page.getByRole("status").filter({ hasText: LIVE_BUSY_TEXT }), 30_000);
    await device.context.close();
  });
});
