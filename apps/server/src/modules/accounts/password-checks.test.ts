/**
 * Issue 42, point 5: password checks are counted per account, not per session. A thief with one stolen session can
 * make more (Add a device, or signing in again), so the sessions of an account share one limit on every route that
 * checks the current password, in one process and across processes (Redis).
 */
import { API, SETTINGS_API } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverStartTimeoutMs } from "../../testing/start-wait.ts";
import { Device, startTestServer, type TestServer } from "../../testing/test-server.ts";
import { startTwoServerProcesses, type TwoServerProcesses } from "../../testing/two-server-processes.ts";

/** LOGIN_RATE_LIMIT_MAX: what a window allows, to sign-in from one address and to password checks of one account. */
const LIMIT = 6;

/** Wrong-password checks on each route that checks the current password, from `device`. */
const wrongChecks = (device: Device) => [
  () => device.request("PUT", SETTINGS_API.email, { email: `elsewhere${Math.random()}@example.com`, password: "wrong horse" }),
  () =>
    device.request("PUT", SETTINGS_API.password, {
      current_password: "wrong horse",
      password: "new horse 1",
      confirm_password: "new horse 1",
    }),
  () => device.request("DELETE", SETTINGS_API.account, { email: "x@example.com", password: "wrong horse" }),
];

/** Five signed-in devices of one account (registered on the first URL, signed in on each in turn). */
async function fiveSessions(urls: string[], email: string): Promise<Device[]> {
  const first = new Device(urls[0] ?? "");
  await first.register("Owner", email);
  const devices = [first];
  for (let i = 1; i < 5; i++) {
    const device = new Device(urls[i % urls.length] ?? "");
    await device.login(email);
    devices.push(device);
  }
  return devices;
}

/** Every device tries every route three times; how many checks were made (answered 403 wrong_password) and refused (429). */
async function attack(devices: Device[]): Promise<{ checked: number; limited: number; other: number[] }> {
  const statuses: number[] = [];
  for (let round = 0; round < 3; round++) {
    for (const device of devices) for (const check of wrongChecks(device)) statuses.push((await check()).status);
  }
  return {
    checked: statuses.filter((s) => s === 403).length,
    limited: statuses.filter((s) => s === 429).length,
    other: statuses.filter((s) => s !== 403 && s !== 429),
  };
}

describe("password checks of one account", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ LOGIN_RATE_LIMIT_MAX: String(LIMIT) });
  });
  afterAll(() => server.close());

  it("five sessions together get no more wrong-password checks than the limit, on every route that checks it", async () => {
    const devices = await fiveSessions([server.url], "many.sessions@example.com");
    const { checked, limited, other } = await attack(devices);
    expect(other).toEqual([]);
    expect(checked).toBeLessThanOrEqual(LIMIT);
    expect(limited).toBe(45 - checked);
    // Another account is not held back by this one's count.
    const bystander = new Device(server.url);
    await bystander.register("Bystander", "bystander@example.com");
    const [check] = wrongChecks(bystander);
    expect((await check?.())?.status).toBe(403);
    // The sessions still work for everything else.
    expect((await devices[0]?.get(API.me))?.status).toBe(200);
  });
});

describe("password checks of one account on two server processes", () => {
  let processes: TwoServerProcesses;
  beforeAll(
    async () => {
      processes = await startTwoServerProcesses({ LOGIN_RATE_LIMIT_MAX: String(LIMIT) });
    },
    2 * serverStartTimeoutMs() + 10_000,
  );
  afterAll(() => processes?.stop());

  it("share one count (Redis): sessions on both processes get no more than the limit together", async () => {
    const devices = await fiveSessions([processes.one.url, processes.two.url], "two.processes@example.com");
    const { checked, other } = await attack(devices);
    expect(other).toEqual([]);
    expect(checked).toBeLessThanOrEqual(LIMIT);
  });
});
