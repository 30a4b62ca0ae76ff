/**
 * Issue 43: Devices tells devices apart. Two phones of one browser and system ("Chrome 124 on Android 14") are named
 * by their model, from the User-Agent's model token or, where the browser froze it to "K", from the Sec-CH-UA-Model
 * client hint the app's pages ask for (security-headers.test.ts); and a device whose request to be approved was denied is listed as denied, not
 * as waiting.
 */
import { API, DEVICES_API, type DevicesResponse, KEYS_API } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { androidModelOf, describeUserAgent, userAgentWithModel } from "../../presenters/device-name.ts";
import { account, ask } from "../../testing/key-request-steps.ts";
import { Device, startTestServer, type TestServer } from "../../testing/test-server.ts";

const chromeOnAndroid = (model: string) =>
  `Mozilla/5.0 (Linux; Android 14; ${model}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36`;
const FROZEN = "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ LOGIN_RATE_LIMIT_MAX: "1000" });
});
afterAll(() => server.close());

describe("names that tell phones apart", () => {
  it("names an Android phone by the model its User-Agent gives, and not by a frozen 'K'", () => {
    expect(describeUserAgent(chromeOnAndroid("Pixel 8")).name).toBe("Chrome 124 on Pixel 8 (Android 14)");
    expect(describeUserAgent(chromeOnAndroid("SM-S921B Build/UP1A.231005.007")).name).toBe("Chrome 124 on SM-S921B (Android 14)");
    expect(describeUserAgent(FROZEN).name).toBe("Chrome 124 on Android 10");
    expect(androidModelOf("Mozilla/5.0 (Android 14; Mobile; rv:125.0) Gecko/125.0 Firefox/125.0")).toBeUndefined();
  });

  it("fills a frozen model in from the client hint, a quoted string, and ignores a malformed one", () => {
    expect(userAgentWithModel(FROZEN, '"Pixel 8"')).toBe(chromeOnAndroid("Pixel 8").replace("Android 14", "Android 10"));
    expect(userAgentWithModel(FROZEN, '""')).toBe(FROZEN);
    expect(userAgentWithModel(FROZEN, "Pixel 8")).toBe(FROZEN);
    expect(userAgentWithModel(FROZEN, '"a) evil; x"')).toBe(FROZEN);
    expect(userAgentWithModel(chromeOnAndroid("Pixel 8"), '"Pixel 9"')).toBe(chromeOnAndroid("Pixel 8"));
  });

  it("lists two phones of one browser and system under their models, one by its client hint", async () => {
    const a = await account(server, "Twin");
    const pixel = new Device(server.url);
    expect(
      (await pixel.request("POST", API.login, { email: a.email, password: "correct horse" }, { "user-agent": chromeOnAndroid("Pixel 8") }))
        .status,
    ).toBe(200);
    const galaxy = new Device(server.url);
    const hinted = { "user-agent": FROZEN, "sec-ch-ua-model": '"SM-S921B"' };
    expect((await galaxy.request("POST", API.login, { email: a.email, password: "correct horse" }, hinted)).status).toBe(200);
    const names = (await a.phone.get<DevicesResponse>(DEVICES_API.list)).body.devices.map((d) => d.name);
    expect(names).toEqual(expect.arrayContaining(["Chrome 124 on Pixel 8 (Android 14)", "Chrome 124 on SM-S921B (Android 10)"]));
  });
});

describe("a denied request", () => {
  it("lists the device as denied, not as waiting; a new request makes it waiting again", async () => {
    const a = await account(server, "Den");
    const laptopId = async () => (await a.laptop.get<{ session_id: string }>(KEYS_API.keys)).body.session_id;
    const statusOfLaptop = async () => {
      const id = await laptopId();
      return (await a.phone.get<DevicesResponse>(DEVICES_API.list)).body.devices.find((d) => d.id === id)?.key_status;
    };
    const request = await ask(a.laptop);
    expect(await statusOfLaptop()).toBe("waiting");
    expect((await a.phone.post(KEYS_API.deny(request.id))).status).toBe(200);
    expect(await statusOfLaptop()).toBe("denied");
    await ask(a.laptop);
    expect(await statusOfLaptop()).toBe("waiting");
  });
});
