/**
 * An identity at a provider whose email already has an account: not linked by email; linked after a fresh password
 * check; unlinked unless it is the account's last way in.
 */
import { API, type User } from "@daysync/shared";
import { describe, expect, it } from "vitest";
import {
  account,
  atAppPage,
  deviceOf,
  errorOf,
  FLOW,
  host,
  SESSION,
  server,
  signIn,
  useIdentityServers,
} from "../../testing/identity-servers.ts";
import { RedirectBrowser } from "../../testing/redirect-browser.ts";
import { Device } from "../../testing/test-server.ts";

useIdentityServers();

describe("an identity whose email has an account", () => {
  it("is not linked by email; linking after a fresh password check is; unlinking is refused only for the last way in", async () => {
    const email = `owner-${Date.now()}@example.com`;
    const owner = new Device(server.url);
    const user = await owner.register("Owner", email);
    const { login } = account("owner", { email });

    const refused = await signIn("open", login);
    expect(errorOf(refused.landed)).toBe("account_exists");
    expect(refused.browser.cookie(host, SESSION)).toBeUndefined();
    expect(await server.db.selectFrom("identities").selectAll().where("user_id", "=", user.id).execute()).toEqual([]);

    expect((await owner.post("/api/auth/link/open", { password: "not it" })).status).toBe(403);
    expect((await new Device(server.url).post("/api/auth/link/open", { password: "correct horse" })).status).toBe(401);
    const link = await owner.post<{ redirect: string }>("/api/auth/link/open", { password: "correct horse" });
    expect(link.status).toBe(200);
    const flowCookie = /daysync_auth_flow=([^;]+)/.exec(link.headers.get("set-cookie") ?? "")?.[1] ?? "";
    const browser = new RedirectBrowser();
    browser.setCookie(host, FLOW, flowCookie);
    const page = await browser.go(link.body.redirect, { stopAt: atAppPage });
    const linked = await browser.submitForm(page, { login, password: "x" }, { stopAt: atAppPage });
    expect(linked.location?.pathname).toBe("/dashboard/settings");
    expect(linked.location?.searchParams.get("linked")).toBe("open");

    const now = await signIn("open", login);
    expect((await deviceOf(now.browser).get<{ user: User }>(API.me)).body.user.id).toBe(user.id);

    const list = await owner.get<{ identities: Array<{ id: string; label: string }>; has_password: boolean }>("/api/auth/identities");
    expect(list.body).toMatchObject({ has_password: true, identities: [{ label: "Test ID", email }] });
    const identityId = list.body.identities[0]?.id ?? "";
    expect((await new Device(server.url).request("DELETE", `/api/auth/identities/${identityId}`)).status).toBe(401);
    expect((await owner.request("DELETE", `/api/auth/identities/${identityId}`)).status).toBe(204);
    expect(errorOf((await signIn("open", login)).landed)).toBe("account_exists");
  });

  it("refuses to unlink the only way into an account made through a provider", async () => {
    const { login } = account("only");
    const { browser } = await signIn("open", login);
    const device = deviceOf(browser);
    const list = await device.get<{ identities: Array<{ id: string }>; has_password: boolean }>("/api/auth/identities");
    expect(list.body.has_password).toBe(false);
    const stranger = new Device(server.url);
    await stranger.register("Stranger", `stranger-${Date.now()}@example.com`);
    expect((await stranger.request("DELETE", `/api/auth/identities/${list.body.identities[0]?.id}`)).status).toBe(404);
    const res = await device.request("DELETE", `/api/auth/identities/${list.body.identities[0]?.id}`);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: { code: "last_sign_in_method" } });
    expect((await device.post("/api/auth/link/github", { password: "anything" })).status).toBe(403);
  });
});
