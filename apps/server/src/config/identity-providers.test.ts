import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";

const google = {
  OIDC_PROVIDERS: "google",
  OIDC_GOOGLE_ISSUER: "https://accounts.google.com",
  OIDC_GOOGLE_CLIENT_ID: "id",
  OIDC_GOOGLE_CLIENT_SECRET: "secret",
};

describe("identity provider settings", () => {
  it("has no provider and PUBLIC_URL on localhost by default", () => {
    const config = loadConfig({ PORT: "9000" });
    expect(config.identity).toEqual({ publicUrl: "http://localhost:9000", publicUrlGiven: false, providers: [] });
  });

  it("reads each listed OpenID Connect provider, with sign-up off by default", () => {
    const config = loadConfig({
      ...google,
      OIDC_PROVIDERS: "google, Work-SSO",
      PUBLIC_URL: "https://daysync.example.com/",
      OIDC_WORK_SSO_ISSUER: "https://sso.example.com/application/o/daysync/",
      OIDC_WORK_SSO_CLIENT_ID: "w",
      OIDC_WORK_SSO_CLIENT_SECRET: "s",
      OIDC_WORK_SSO_LABEL: "Example SSO",
      OIDC_WORK_SSO_ALLOW_SIGNUP: "true",
      OIDC_WORK_SSO_ALLOWED_DOMAINS: "example.com, @Example.org",
    });
    expect(config.identity.publicUrl).toBe("https://daysync.example.com");
    expect(config.identity.providers).toEqual([
      expect.objectContaining({ id: "google", label: "google", allowSignup: false, allowedDomains: [] }),
      expect.objectContaining({
        id: "work-sso",
        label: "Example SSO",
        issuer: "https://sso.example.com/application/o/daysync/",
        allowSignup: true,
        allowedDomains: ["example.com", "example.org"],
      }),
    ]);
  });

  it("stops the start naming each missing or malformed setting", () => {
    const attempt = () =>
      loadConfig({
        OIDC_PROVIDERS: "google,github,bad id",
        OIDC_GOOGLE_ISSUER: "http://accounts.google.com",
        OIDC_GOOGLE_CLIENT_SECRET: "s",
        OIDC_GOOGLE_ALLOW_SIGNUP: "yes",
        OIDC_GOOGLE_ALLOWED_DOMAINS: "not a domain",
        PUBLIC_URL: "ftp://x",
      });
    expect(attempt).toThrow(/OIDC_GOOGLE_ISSUER: must be an https:\/\/ URL/);
    expect(attempt).toThrow(/OIDC_GOOGLE_CLIENT_ID: required/);
    expect(attempt).toThrow(/OIDC_GOOGLE_ALLOW_SIGNUP: must be true or false/);
    expect(attempt).toThrow(/OIDC_GOOGLE_ALLOWED_DOMAINS: not a domain/);
    expect(attempt).toThrow(/OIDC_PROVIDERS: "github"/);
    expect(attempt).toThrow(/OIDC_PROVIDERS: "bad id"/);
    expect(attempt).toThrow(/PUBLIC_URL/);
  });

  it("accepts an http issuer only on a loopback host", () => {
    expect(loadConfig({ ...google, OIDC_GOOGLE_ISSUER: "http://127.0.0.1:4000" }).identity.providers[0]).toMatchObject({
      issuer: "http://127.0.0.1:4000",
    });
    expect(loadConfig({ ...google, OIDC_GOOGLE_ISSUER: "http://127.8.9.10/" }).identity.providers).toHaveLength(1);
    expect(loadConfig({ ...google, OIDC_GOOGLE_ISSUER: "http://[::1]:4000/" }).identity.providers).toHaveLength(1);
    expect(() => loadConfig({ ...google, OIDC_GOOGLE_ISSUER: "http://localhost.evil.example" })).toThrow(/OIDC_GOOGLE_ISSUER/);
    expect(() => loadConfig({ ...google, OIDC_GOOGLE_ISSUER: "http://10.0.0.1" })).toThrow(/OIDC_GOOGLE_ISSUER/);
  });

  it("takes a loopback issuer by address only: a name is looked up, and DNS may answer anything (issue 42)", () => {
    for (const named of [
      "http://idp.localhost",
      "http://idp.localhost:4000/",
      "http://localhost:4000/",
      "http://LOCALHOST",
      "http://127.0.0.1.nip.io",
    ]) {
      expect(() => loadConfig({ ...google, OIDC_GOOGLE_ISSUER: named }), named).toThrow(/OIDC_GOOGLE_ISSUER: must be an https:\/\/ URL/);
    }
    const github = { GITHUB_CLIENT_ID: "gh", GITHUB_CLIENT_SECRET: "s" };
    expect(() => loadConfig({ ...github, GITHUB_BASE_URL: "http://gh.localhost:4000" })).toThrow(/GITHUB_BASE_URL/);
    expect(() => loadConfig({ ...github, GITHUB_API_URL: "https://localhost:4000" })).toThrow(/GITHUB_API_URL: only a loopback address/);
    expect(loadConfig({ ...github, GITHUB_API_URL: "http://127.0.0.1:4000" }).identity.providers[0]).toMatchObject({
      apiUrl: "http://127.0.0.1:4000",
    });
  });

  it("reads GitHub, whose endpoints may point at a local stand-in only on loopback", () => {
    const config = loadConfig({ GITHUB_CLIENT_ID: "gh", GITHUB_CLIENT_SECRET: "s", GITHUB_ALLOW_SIGNUP: "1" });
    expect(config.identity.providers).toEqual([
      expect.objectContaining({ id: "github", allowSignup: true, baseUrl: "https://github.com", apiUrl: "https://api.github.com" }),
    ]);
    expect(() => loadConfig({ GITHUB_CLIENT_ID: "gh" })).toThrow(/GITHUB_CLIENT_SECRET: required/);
    expect(() => loadConfig({ GITHUB_CLIENT_ID: "gh", GITHUB_CLIENT_SECRET: "s", GITHUB_BASE_URL: "https://evil.example" })).toThrow(
      /GITHUB_BASE_URL: only a loopback address/,
    );
  });
});
