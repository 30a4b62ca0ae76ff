/** Premium with no end date (issue 43), from /admin's route and from `npm run admin`; on SQLite and PostgreSQL. */
import { ADMIN_API, type AdminAccount, API, hasNoEndDate, NO_END_DATE_MS, PREMIUM_TYPE_ID, type User } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdmin } from "../../admin.ts";
import { Device, startTestServer, type TestServer } from "../../testing/test-server.ts";

let server: TestServer;
let admin: Device;

beforeAll(async () => {
  server = await startTestServer();
  admin = new Device(server.url);
  await admin.register("Ada Admin", "ada.admin@example.com");
});
afterAll(() => server.close());

async function person(name: string) {
  const device = new Device(server.url);
  const user = await device.register(name, `${name.toLowerCase()}@example.com`);
  return { device, user };
}

describe("Premium with no end date", () => {
  it("still refuses a body without `until`, with a 400 that names it", async () => {
    const { user } = await person("Nobody");
    const res = await admin.request("PUT", ADMIN_API.premium(user.id), {});
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { field: "until" } });
  });

  it("is granted with `npm run admin -- plan set EMAIL premium --no-end-date`", async () => {
    const { device } = await person("Cli");
    const { code, output } = await runAdmin(["plan", "set", "cli@example.com", "premium", "--no-end-date"], server.env);
    expect([code, output]).toEqual([0, expect.stringContaining("no end date")]);
    const me = (await device.get<{ user: User }>(API.me)).body.user;
    expect(me.subscription_type_id).toBe(PREMIUM_TYPE_ID);
    expect(hasNoEndDate(Date.parse(me.date_expiration_subscription))).toBe(true);
    expect((await runAdmin(["plan", "set", "cli@example.com", "free", "--no-end-date"], server.env)).code).toBe(2);
  });

  // Last: it moves this server's clock twenty years ahead.
  it("is granted from /admin with `until: null`, and the sweeper never ends it", async () => {
    const { device, user } = await person("Noend");
    const res = await admin.request<{ account: AdminAccount }>("PUT", ADMIN_API.premium(user.id), { until: null });
    expect(res.status).toBe(200);
    expect(res.body.account.subscription_type_id).toBe(PREMIUM_TYPE_ID);
    expect(res.body.account.date_expiration_subscription).toBe(NO_END_DATE_MS);
    server.clock.advance(20 * 365 * 24 * 60 * 60 * 1000);
    await server.sweeper.sweep();
    await device.login("noend@example.com");
    const me = (await device.get<{ user: User }>(API.me)).body.user;
    expect(me.subscription_type_id).toBe(PREMIUM_TYPE_ID);
    expect(hasNoEndDate(Date.parse(me.date_expiration_subscription))).toBe(true);
  });
});
