/** REGISTRATION and the owner's details (issue 43): read once at boot, a bad value stops the start naming it. */
import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";

describe("who may register and the owner's details", () => {
  it("leaves REGISTRATION to the default (open until the first account, then invite) when unset or empty", () => {
    expect(loadConfig({}).registration).toBeUndefined();
    expect(loadConfig({ REGISTRATION: "" }).registration).toBeUndefined();
    for (const mode of ["open", "invite", "closed"] as const) expect(loadConfig({ REGISTRATION: mode }).registration).toBe(mode);
  });

  it("shows nothing of the owner unless set, and takes what is set", () => {
    expect(loadConfig({}).site).toEqual({ contactPhone: null, contactEmail: null, brandLine: null, appStoreUrl: null, playStoreUrl: null });
    const site = loadConfig({
      CONTACT_PHONE: " +44 20 7946 0000 ",
      CONTACT_EMAIL: "owner@home.example",
      BRAND_LINE: "The Example Household",
      APP_STORE_URL: "https://apps.example/x",
      PLAY_STORE_URL: "https://play.example/x",
    }).site;
    expect(site).toEqual({
      contactPhone: "+44 20 7946 0000",
      contactEmail: "owner@home.example",
      brandLine: "The Example Household",
      appStoreUrl: "https://apps.example/x",
      playStoreUrl: "https://play.example/x",
    });
  });

  it("stops the start on a registration mode, an email or a store link it cannot use, naming the setting", () => {
    expect(() => loadConfig({ REGISTRATION: "maybe" })).toThrow(/REGISTRATION/);
    expect(() => loadConfig({ CONTACT_EMAIL: "not an address" })).toThrow(/CONTACT_EMAIL/);
    expect(() => loadConfig({ APP_STORE_URL: "javascript:alert(1)" })).toThrow(/APP_STORE_URL/);
  });
});
