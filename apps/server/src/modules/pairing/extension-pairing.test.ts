/**
 * The browser extension pairs like any new device (issue 46) and says what it is (client-kind.ts): it is named
 * "Chrome extension on Linux", gets its session token in the exchange's answer instead of a cookie, and uses it as a
 * bearer token and on the live socket, from its own `chrome-extension:` origin.
 */
import {
  API,
  BROWSER_EXTENSION,
  CLIENT_HEADER,
  DEVICES_API,
  type DevicesResponse,
  liveProtocolsWithToken,
  PAIRING_API,
  type PairingRequestCreated,
  type PairingRequestDetails,
  type User,
} from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { PairWaiter } from "../../testing/pair-waiter.ts";
import { Device, startTestServer, type TestServer } from "../../testing/test-server.ts";

const CHROME_ON_LINUX = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36";
const EXTENSION = {
  "user-agent": CHROME_ON_LINUX,
  [CLIENT_HEADER]: BROWSER_EXTENSION,
  origin: "chrome-extension://abcdefghijklmnopabcdefghijklmnop",
};

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** The extension pairs, approved by a signed-in phone; its token from the exchange's answer. */
async function pairedExtension(email: string): Promise<{ phone: Device; user: User; token: string }> {
  const phone = new Device(server.url);
  const user = await phone.register("Ext", email);
  const extension = new Device(server.url);
  const asked = await extension.request<PairingRequestCreated>("POST", PAIRING_API.requests, undefined, EXTENSION);
  expect(asked.status).toBe(201);
  const request = asked.body;
  const waiter = await PairWaiter.open(server.url, request.request_id, request.secret);
  await waiter.next("waiting");
  const details = await phone.get<{ request: PairingRequestDetails }>(PAIRING_API.request(request.code));
  expect(details.body.request.name).toBe("Chrome extension on Linux");
  expect((await phone.post(PAIRING_API.approve(request.code))).status).toBe(204);
  const { token } = await waiter.next("approved");
  const body = { request_id: request.request_id, secret: request.secret, token };
  const res = await extension.request<{ user: User; session_token?: string }>("POST", PAIRING_API.exchange, body, EXTENSION);
  expect(res.status).toBe(200);
  expect(res.body.user.id).toBe(user.id);
  // No cookie: it would replace the session of the web app signed in on the same browser.
  expect(extension.cookie).toBe("");
  expect(res.body.session_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  return { phone, user, token: res.body.session_token ?? "" };
}

describe("the browser extension as a device", () => {
  it("is named for what it is, and signs in with the token it holds", async () => {
    const { phone, user, token } = await pairedExtension("ext1@example.com");
    const bearer = { authorization: `Bearer ${token}` };
    const me = await fetch(`${server.url}${API.me}`, { headers: bearer });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { user: User }).user.id).toBe(user.id);

    const list = await phone.get<DevicesResponse>(DEVICES_API.list);
    expect(list.body.devices.map((d) => d.name)).toContain("Chrome extension on Linux");

    // A write from the extension's own origin is its own, not a cross-site one.
    const sent = await fetch(`${server.url}${DEVICES_API.signOutOthers}`, {
      method: "POST",
      headers: { ...bearer, origin: EXTENSION.origin },
    });
    expect(sent.status).toBe(200);
  });

  it("opens the live connection with its token as a subprotocol", async () => {
    const { token } = await pairedExtension("ext2@example.com");
    const socket = new WebSocket(`${server.url.replace("http", "ws")}${API.live}`, liveProtocolsWithToken(token), {
      headers: { origin: EXTENSION.origin },
    });
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("unexpected-response", (_req, res) => reject(new Error(`live refused: ${res.statusCode}`)));
    });
    expect(socket.protocol).toBe("daysync");
    socket.close();
  });

  it("never acts with the browser's cookie from an extension's origin: only with the token it was given", async () => {
    const phone = new Device(server.url);
    await phone.register("Cookie", "ext3@example.com");
    const withCookie = { cookie: phone.cookie, origin: EXTENSION.origin };
    expect((await fetch(`${server.url}${API.me}`, { headers: withCookie })).status).toBe(401);
    const write = await fetch(`${server.url}${DEVICES_API.signOutOthers}`, { method: "POST", headers: withCookie });
    expect(write.status).toBe(401);
    // The same cookie from the web app's own page still works.
    expect((await fetch(`${server.url}${API.me}`, { headers: { cookie: phone.cookie } })).status).toBe(200);
  });

  it("refuses a client kind it does not know, in words", async () => {
    const res = await new Device(server.url).request<{ error: { message: string } }>("POST", PAIRING_API.requests, undefined, {
      [CLIENT_HEADER]: "toaster",
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('x-daysync-client may only be "browser-extension".');
  });

  it("still refuses a web page of another site", async () => {
    const res = await fetch(`${server.url}${DEVICES_API.signOutOthers}`, { method: "POST", headers: { origin: "https://evil.example" } });
    expect(res.status).toBe(403);
  });
});
