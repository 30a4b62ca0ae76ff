/**
 * The client's address behind a reverse proxy that appends to `X-Forwarded-For` (nginx's `$proxy_add_x_forwarded_for`):
 * what a client writes into the header itself must lift no per-address limit and show nowhere.
 */
import {
  API,
  DEVICES_API,
  type DevicesResponse,
  DISCUSSIONS_API,
  PAIR_LIVE_CLOSE,
  PAIRING_API,
  type PairingRequestCreated,
  type PairingRequestDetails,
} from "@daysync/shared";
import { afterEach, describe, expect, it } from "vitest";
import { type AppendingProxy, PROXY_ADDRESS, startAppendingProxy } from "../testing/appending-proxy.ts";
import { PairWaiter } from "../testing/pair-waiter.ts";
import { Device, startTestServer, type TestServer } from "../testing/test-server.ts";

/** The address a test client really connects from: the loopback default. */
const CLIENT_ADDRESS = "127.0.0.1";
const forged = (i: number) => ({ "x-forwarded-for": `203.0.113.${i}` });

let running: Array<TestServer | AppendingProxy> = [];
afterEach(async () => {
  for (const part of running.reverse()) await part.close();
  running = [];
});

/** A server configured by `env`, reached through an appending proxy: clients use the proxy's URL. */
async function behindProxy(env: Record<string, string>) {
  const server = await startTestServer(env);
  const proxy = await startAppendingProxy(server.url);
  running.push(server, proxy);
  return { server, url: proxy.url };
}

let people = 0;
async function signedIn(url: string, headers: Record<string, string> = {}) {
  const device = new Device(url);
  const email = `address${++people}@example.com`;
  const res = await device.request(
    "POST",
    API.register,
    { name: "Ann", email, password: "correct horse", confirm_password: "correct horse" },
    headers,
  );
  expect(res.status).toBe(201);
  return { device, email };
}

async function shownAddress(device: Device): Promise<string | undefined> {
  const res = await device.get<DevicesResponse>(DEVICES_API.list);
  return res.body.devices.find((d) => d.current)?.ip;
}

async function pairingRequestAddress(url: string, approver: Device, headers: Record<string, string>): Promise<string> {
  const asked = await new Device(url).request<PairingRequestCreated>("POST", PAIRING_API.requests, undefined, headers);
  expect(asked.status).toBe(201);
  const details = await approver.get<{ request: PairingRequestDetails }>(PAIRING_API.request(asked.body.code));
  return details.body.request.ip;
}

describe.each([
  ["one hop (TRUST_PROXY=true)", "true"],
  ["a hop count (TRUST_PROXY=1)", "1"],
  ["the proxy's address (TRUST_PROXY=<proxy>)", PROXY_ADDRESS],
  ["the proxy's network (TRUST_PROXY=<CIDR>)", "127.0.0.2/31"],
])("behind a trusted appending proxy: %s", (_name, trust) => {
  it("a forged X-Forwarded-For does not lift the sign-in limit", async () => {
    const { url } = await behindProxy({ TRUST_PROXY: trust, LOGIN_RATE_LIMIT_MAX: "3" });
    const { email } = await signedIn(url);
    const statuses = [];
    for (let i = 1; i <= 5; i++) {
      const res = await new Device(url).request("POST", API.login, { email, password: "wrong password" }, forged(i));
      statuses.push(res.status);
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
  });

  it("a forged X-Forwarded-For does not lift the per-address join limit", async () => {
    const { url } = await behindProxy({ TRUST_PROXY: trust, DISCUSSION_JOIN_ADDRESS_RATE_LIMIT_MAX: "3" });
    const statuses = [];
    for (let i = 1; i <= 4; i++) {
      const { device } = await signedIn(url);
      const res = await device.request("POST", DISCUSSIONS_API.join("AAAAAAAAAA"), { display_name: "G" }, forged(i));
      statuses.push(res.status);
    }
    expect(statuses).toEqual([404, 404, 404, 429]);
  });

  it("a forged X-Forwarded-For does not lift the waiting pairing sockets' limit", async () => {
    const { url } = await behindProxy({ TRUST_PROXY: trust, PAIR_SOCKETS_PER_ADDRESS: "2" });
    const open = [await PairWaiter.connect(url, forged(1)), await PairWaiter.connect(url, forged(2))];
    const extra = await PairWaiter.connect(url, forged(3));
    expect(await extra.waitForClose()).toBe(PAIR_LIVE_CLOSE.tooManyConnections);
    for (const waiter of open) waiter.close();
  });

  it("Devices and a pairing request show the client's real address, not the forged one", async () => {
    const { url } = await behindProxy({ TRUST_PROXY: trust });
    const { device } = await signedIn(url, forged(7));
    expect(await shownAddress(device)).toBe(CLIENT_ADDRESS);
    expect(await pairingRequestAddress(url, device, forged(8))).toBe(CLIENT_ADDRESS);
  });
});

describe("with no proxy trusted", () => {
  it("ignores X-Forwarded-For: the address is the connection's", async () => {
    const { url } = await behindProxy({});
    const { device } = await signedIn(url, forged(7));
    expect(await shownAddress(device)).toBe(PROXY_ADDRESS);
    expect(await pairingRequestAddress(url, device, forged(8))).toBe(PROXY_ADDRESS);
  });

  it("a forged X-Forwarded-For sent straight to the server changes nothing", async () => {
    const server = await startTestServer({ LOGIN_RATE_LIMIT_MAX: "2" });
    running.push(server);
    const { device, email } = await signedIn(server.url, forged(7));
    expect(await shownAddress(device)).toBe(CLIENT_ADDRESS);
    const statuses = [];
    for (let i = 1; i <= 3; i++) {
      statuses.push((await new Device(server.url).request("POST", API.login, { email, password: "wrong" }, forged(i))).status);
    }
    expect(statuses).toEqual([401, 401, 429]);
  });
});
