import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";

describe("database and files configuration", () => {
  it("defaults to the SQLite file and files folder under DATA_DIR", () => {
    const config = loadConfig({ DATA_DIR: "/srv/daysync" });
    expect(config.databaseUrl).toBeUndefined();
    expect(config.databaseFile).toBe("/srv/daysync/daysync.sqlite");
    expect(config.filesDir).toBe("/srv/daysync/files");
  });

  it("selects PostgreSQL for a postgres:// DATABASE_URL and takes FILES_DIR as given", () => {
    const config = loadConfig({ DATABASE_URL: "postgres://app@db:5432/daysync", FILES_DIR: "shared/files" });
    expect(config.databaseUrl).toBe("postgres://app@db:5432/daysync");
    expect(config.filesDir).toBe(path.resolve("shared/files"));
    expect(loadConfig({ DATABASE_URL: "postgresql://db/daysync" }).databaseUrl).toBe("postgresql://db/daysync");
  });

  it("takes a file: DATABASE_URL as the SQLite file", () => {
    const config = loadConfig({ DATABASE_URL: "file:///var/lib/daysync/one.sqlite" });
    expect(config.databaseUrl).toBeUndefined();
    expect(config.databaseFile).toBe("/var/lib/daysync/one.sqlite");
  });

  it("refuses any other DATABASE_URL at start, naming the variable", () => {
    expect(() => loadConfig({ DATABASE_URL: "mysql://db/daysync" })).toThrow(/DATABASE_URL/);
  });
});

describe("TRUST_PROXY", () => {
  it("trusts no proxy by default, or when false or 0", () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "false" }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "0" }).trustProxy).toBe(false);
  });

  it("takes true as one hop, and a number of hops as given", () => {
    expect(loadConfig({ TRUST_PROXY: "true" }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: "2" }).trustProxy).toBe(2);
  });

  it("takes proxies' addresses, CIDRs and proxy-addr's named ranges", () => {
    expect(loadConfig({ TRUST_PROXY: "10.0.0.5, 192.168.0.0/16,::1,fd00::/8,loopback" }).trustProxy).toEqual([
      "10.0.0.5",
      "192.168.0.0/16",
      "::1",
      "fd00::/8",
      "loopback",
    ]);
  });

  it("refuses anything else at start, naming the variable and the entry", () => {
    expect(() => loadConfig({ TRUST_PROXY: "yes" })).toThrow(/TRUST_PROXY.*not an address: yes/);
    expect(() => loadConfig({ TRUST_PROXY: "10.0.0.0/33" })).toThrow(/TRUST_PROXY/);
    expect(() => loadConfig({ TRUST_PROXY: "10.0.0.1,proxy.example.com" })).toThrow(/proxy\.example\.com/);
  });
});

describe("metrics settings", () => {
  it("are off by default; a token, a port of their own and its host are taken as given", () => {
    expect(loadConfig({}).metrics).toEqual({ token: undefined, port: undefined, host: "0.0.0.0" });
    const config = loadConfig({ METRICS_TOKEN: "abcdefghijklmnop-._~+/=", METRICS_PORT: "9464", HOST: "10.0.0.2" });
    expect(config.metrics).toEqual({ token: "abcdefghijklmnop-._~+/=", port: 9464, host: "10.0.0.2" });
    expect(loadConfig({ METRICS_PORT: "9464", METRICS_HOST: "127.0.0.1" }).metrics.host).toBe("127.0.0.1");
  });

  it("refuses a malformed METRICS_PORT at start, naming it", () => {
    for (const port of ["metrics", "0", "65536", "94.5", "-1"]) {
      expect(() => loadConfig({ METRICS_PORT: port })).toThrow(/METRICS_PORT/);
    }
    expect(() => loadConfig({ PORT: "9000", METRICS_PORT: "9000" })).toThrow(/METRICS_PORT: must differ from PORT/);
  });

  it("refuses a METRICS_TOKEN too short to be secret, or that a Bearer header cannot carry, naming it", () => {
    for (const token of ["", "short", "has spaces in it, sixteen+", "ünïcödé-but-long-enough"]) {
      expect(() => loadConfig({ METRICS_TOKEN: token })).toThrow(/METRICS_TOKEN: must be at least 16 characters/);
    }
  });
});

describe("payments (Stripe)", () => {
  const all = {
    STRIPE_SECRET_KEY: "sk_test_1",
    STRIPE_WEBHOOK_SECRET: "whsec_1",
    STRIPE_PRICE_PREMIUM_MONTHLY: "price_p",
    STRIPE_PRICE_EXTENSION_7D: "price_7",
    STRIPE_PRICE_EXTENSION_30D: "price_30",
  };

  it("are off unless configured", () => {
    expect(loadConfig({}).stripe).toBeUndefined();
    expect(loadConfig({}).donationUrl).toBeUndefined();
  });

  it("are on with every setting, against Stripe's own API unless told otherwise", () => {
    expect(loadConfig(all).stripe).toEqual({
      secretKey: "sk_test_1",
      webhookSecret: "whsec_1",
      apiUrl: "https://api.stripe.com",
      prices: { premiumMonthly: "price_p", extension7d: "price_7", extension30d: "price_30" },
    });
    expect(loadConfig({ ...all, STRIPE_API_URL: "http://127.0.0.1:12111" }).stripe?.apiUrl).toBe("http://127.0.0.1:12111");
  });

  it("refuses a partial setting at start, naming what is missing", () => {
    const { STRIPE_WEBHOOK_SECRET: _secret, STRIPE_PRICE_EXTENSION_30D: _price, ...partial } = all;
    expect(() => loadConfig(partial)).toThrow(/missing: STRIPE_WEBHOOK_SECRET, STRIPE_PRICE_EXTENSION_30D/);
    expect(() => loadConfig({ STRIPE_SECRET_KEY: "sk_test_1" })).toThrow(/STRIPE_WEBHOOK_SECRET/);
  });

  it("takes a donation page as a URL", () => {
    expect(loadConfig({ DONATION_URL: "https://example.com/give" }).donationUrl).toBe("https://example.com/give");
    expect(() => loadConfig({ DONATION_URL: "give here" })).toThrow(/DONATION_URL/);
  });
});
