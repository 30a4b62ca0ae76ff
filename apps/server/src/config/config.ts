/** The only module that reads process.env: parsed and checked once at boot. */
import { isIP } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_MAX_DISCUSSION_MEMBERS, type RegistrationMode, registrationModeSchema } from "@daysync/shared";
import { z } from "zod";
import { type EmailConfig, parseEmailConfig } from "./email.ts";
import { type HttpsConfig, parseHttpsConfig } from "./https.ts";
import { type IdentityConfig, parseIdentityConfig } from "./identity-providers.ts";

const bool = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");
const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** proxy-addr's names for whole ranges, besides addresses and CIDRs. */
const NAMED_RANGES = new Set(["loopback", "linklocal", "uniquelocal"]);
function isAddressOrRange(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const [address = "", prefix, ...rest] = entry.split("/");
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  const bits = Number(prefix);
  return /^\d+$/.test(prefix) && bits <= (version === 4 ? 32 : 128);
}

/**
 * Which proxies' `X-Forwarded-For` entries to believe: `false` none (the header is ignored), a number of hops in front
 * of the server (`true` is one), or the proxies' addresses and CIDRs. The client's address is the nearest entry not
 * written by a trusted proxy, never the leftmost one a client can write itself.
 */
const trustProxy = z
  .string()
  .trim()
  .transform((value, ctx): TrustProxy => {
    if (value === "false" || value === "0" || value === "") return false;
    if (value === "true") return 1;
    if (/^\d+$/.test(value)) return Number(value);
    const entries = value.split(",").map((entry) => entry.trim());
    const bad = entries.filter((entry) => !isAddressOrRange(entry));
    if (bad.length === 0) return entries;
    ctx.addIssue({
      code: "custom",
      message: `must be false, true, a number of proxy hops, or proxy addresses/CIDRs separated by commas (not an address: ${bad.join(", ")})`,
    });
    return z.NEVER;
  })
  .default(false);

const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default("0.0.0.0"),
  DATA_DIR: z.string().default("./data"),
  /** postgres:// (or postgresql://) selects PostgreSQL; file:///path.sqlite a SQLite file; unset: DATA_DIR/daysync.sqlite. */
  DATABASE_URL: z
    .string()
    .regex(/^(postgres|postgresql|file):/, "must be a postgres:// or file: URL")
    .optional(),
  /** Uploaded files and unfinished uploads; shared by all processes of one installation. */
  FILES_DIR: z.string().optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** Where the built web app is; served with fallback to index.html for app routes. */
  WEB_DIST: z.string().optional(),
  /** Set when the app is served over HTTPS, so the session cookie is Secure. */
  COOKIE_SECURE: bool.default(false),
  TRUST_PROXY: trustProxy,
  LOGIN_RATE_LIMIT_MAX: positiveInt(10),
  LOGIN_RATE_LIMIT_WINDOW_MS: positiveInt(15 * 60 * 1000),
  /** Accounts created per address and window: each costs an argon2 hash, so this also bounds CPU spent on sign-ups. */
  REGISTER_RATE_LIMIT_MAX: positiveInt(10),
  REGISTER_RATE_LIMIT_WINDOW_MS: positiveInt(60 * 60 * 1000),
  /** Messages one device may send: MAX in each window (100 per 5 s: bursts of 100, 20 a second sustained). */
  SEND_RATE_LIMIT_MAX: positiveInt(100),
  SEND_RATE_LIMIT_WINDOW_MS: positiveInt(5_000),
  /** Members of one discussion at most (its creator included). */
  DISCUSSION_MAX_MEMBERS: positiveInt(DEFAULT_MAX_DISCUSSION_MEMBERS),
  /**
   * Joins by ID per signed-in device, and per client address, in each window: IDs cannot be found by trying. The
   * address allows more, since the members of one discussion often join from one network at the same moment.
   */
  DISCUSSION_JOIN_RATE_LIMIT_MAX: positiveInt(10),
  DISCUSSION_JOIN_ADDRESS_RATE_LIMIT_MAX: positiveInt(60),
  DISCUSSION_JOIN_RATE_LIMIT_WINDOW_MS: positiveInt(60_000),
  /** Open live sockets per signed-in device (its tabs share one session) and per account, in one process. */
  LIVE_SOCKETS_PER_SESSION: positiveInt(8),
  LIVE_SOCKETS_PER_USER: positiveInt(64),
  /** Live sockets one process takes per second; the rest are closed with 1013 and come back a few seconds later. */
  LIVE_ACCEPT_PER_SECOND: positiveInt(1000),
  /** Devices waiting for pairing approval per client address, in one process. */
  PAIR_SOCKETS_PER_ADDRESS: positiveInt(16),
  SWEEP_INTERVAL_MS: positiveInt(20_000),
  /** Redis for what processes share (event bus, rate-limit counts, upload and sweeper locks); unset: one process, in memory. */
  REDIS_URL: z.string().url().optional(),
  /** Prefix of every Redis key and channel, so deployments (or test servers) can share one Redis. */
  REDIS_PREFIX: z.string().min(1).default("daysync:"),
  /** How often each process compares its open live sockets with the database, for changes the bus lost. */
  LIVE_SEQ_CHECK_MS: positiveInt(5_000),
  FREE_MAX_FILE_BYTES: positiveInt(100 * 1024 * 1024),
  PREMIUM_MAX_FILE_BYTES: positiveInt(2 * 1024 * 1024 * 1024),
  /** Storage per account: live files plus unfinished uploads. */
  FREE_STORAGE_BYTES: positiveInt(1024 * 1024 * 1024),
  PREMIUM_STORAGE_BYTES: positiveInt(50 * 1024 * 1024 * 1024),
  /** Incomplete uploads untouched this long are deleted. */
  UPLOAD_EXPIRY_MS: positiveInt(24 * 60 * 60 * 1000),
  /** Set: GET /metrics on the server's port answers a scraper sending it as `Authorization: Bearer …`. */
  METRICS_TOKEN: z
    .string()
    .regex(/^[A-Za-z0-9._~+/-]{16,}=*$/, "must be at least 16 characters of letters, digits and . _ ~ + / - (= only at the end)")
    .optional(),
  /** Set: GET /metrics is also served, without a token, on this port of METRICS_HOST (default HOST). */
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  METRICS_HOST: z.string().min(1).optional(),
  /** Payments through Stripe: on only when every one of `STRIPE_SETTINGS` is set; some but not all stop the start. */
  STRIPE_SECRET_KEY: z.string().trim().min(1).optional(),
  STRIPE_WEBHOOK_SECRET: z.string().trim().min(1).optional(),
  STRIPE_PRICE_PREMIUM_MONTHLY: z.string().trim().min(1).optional(),
  STRIPE_PRICE_EXTENSION_7D: z.string().trim().min(1).optional(),
  STRIPE_PRICE_EXTENSION_30D: z.string().trim().min(1).optional(),
  /** Where the Stripe API is: Stripe's own unless set (tests point it at a local fake). */
  STRIPE_API_URL: z.string().url().default("https://api.stripe.com"),
  /** `off`: plain HTTP only (behind a proxy that serves HTTPS); on: HTTPS on the home network too (config/https.ts). */
  HTTPS: z.enum(["on", "off", "true", "false", "1", "0"]).default("on"),
  HTTPS_PORT: z.coerce.number().int().min(1).max(65535).default(8443),
  /** The home network addresses to serve HTTPS on and name in links, separated by commas; unset: the machine's own. */
  LAN_ADDRESSES: z.string().optional(),
  /** One's own certificate and key (PEM files), served instead of the local authority's. */
  TLS_CERT: z.string().trim().min(1).optional(),
  TLS_KEY: z.string().trim().min(1).optional(),
  /** A page that takes donations; set, the site shows a Donate link to it. */
  DONATION_URL: z.string().url().optional(),
  /** Who may make an account: open, invite (an admin's one-time link) or closed; unset: open until the first account, then invite. */
  REGISTRATION: z.union([z.literal(""), registrationModeSchema]).optional(),
  /** The owner's details on the public pages; each is hidden while unset. */
  CONTACT_PHONE: z.string().trim().min(1).max(40).optional(),
  CONTACT_EMAIL: z.email().optional(),
  BRAND_LINE: z.string().trim().min(1).max(200).optional(),
  APP_STORE_URL: z.url({ protocol: /^https?$/ }).optional(),
  PLAY_STORE_URL: z.url({ protocol: /^https?$/ }).optional(),
});

/** The settings payments need, all of them. */
export const STRIPE_SETTINGS = [
  "STRIPE_SECRET_KEY",
  "STRIPE_WEBHOOK_SECRET",
  "STRIPE_PRICE_PREMIUM_MONTHLY",
  "STRIPE_PRICE_EXTENSION_7D",
  "STRIPE_PRICE_EXTENSION_30D",
] as const;

/** `false`: no proxy is trusted; a number: that many hops; a list: the proxies' addresses and CIDRs. */
export type TrustProxy = false | number | string[];

export interface RateLimit {
  max: number;
  windowMs: number;
}

export interface SocketLimits {
  livePerSession: number;
  livePerUser: number;
  /** New live sockets taken per second, in one process (a restart's storm); the rest hear "try again shortly". */
  liveAcceptPerSecond: number;
  pairPerAddress: number;
}

export interface StripeConfig {
  secretKey: string;
  webhookSecret: string;
  apiUrl: string;
  prices: { premiumMonthly: string; extension7d: string; extension30d: string };
}

export interface Config {
  env: "development" | "production" | "test";
  port: number;
  host: string;
  dataDir: string;
  /** The SQLite file, used when `databaseUrl` is not set. */
  databaseFile: string;
  /** A PostgreSQL connection URL; set, it replaces the SQLite file. */
  databaseUrl: string | undefined;
  logLevel: string;
  webDist: string;
  cookieSecure: boolean;
  trustProxy: TrustProxy;
  loginRateLimit: RateLimit;
  registerRateLimit: RateLimit;
  sendRateLimit: RateLimit;
  discussions: { maxMembers: number; joinRateLimit: RateLimit; joinAddressRateLimit: RateLimit };
  socketLimits: SocketLimits;
  sweepIntervalMs: number;
  redis: { url: string; prefix: string } | undefined;
  liveSeqCheckMs: number;
  filesDir: string;
  maxFileBytes: { free: number; premium: number };
  storageBytes: { free: number; premium: number };
  uploadExpiryMs: number;
  /** Prometheus metrics: off unless a token or a port of their own is set. */
  metrics: { token: string | undefined; port: number | undefined; host: string };
  /** PUBLIC_URL and the identity providers (config/identity-providers.ts). */
  identity: IdentityConfig;
  /** SMTP_URL, MAIL_FROM and how often mail may be asked for (config/email.ts); `email.smtp` undefined: no mail. */
  email: EmailConfig;
  /** Payments through Stripe; undefined: this server takes no payments. */
  stripe: StripeConfig | undefined;
  /** HTTPS beside plain HTTP (config/https.ts); undefined: `HTTPS=off`. */
  https: HttpsConfig | undefined;
  donationUrl: string | undefined;
  /** REGISTRATION as set; undefined: open until the first account exists, then invite. */
  registration: RegistrationMode | undefined;
  /** What the public pages show of the owner (`GET /api/site`); null: not shown. */
  site: {
    contactPhone: string | null;
    contactEmail: string | null;
    brandLine: string | null;
    appStoreUrl: string | null;
    playStoreUrl: string | null;
  };
}

const repoRoot = path.resolve(import.meta.dirname, "../../../..");

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  const problems = parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  const identity = parseIdentityConfig(env, parsed.data?.PORT ?? 8080, problems);
  const email = parseEmailConfig(env, problems);
  if (!parsed.success || problems.length > 0) {
    throw new Error(`Invalid configuration:\n${problems.map((p) => `  ${p}`).join("\n")}`);
  }
  const e = parsed.data;
  if (e.METRICS_PORT !== undefined && e.METRICS_PORT === e.PORT) {
    throw new Error(`Invalid configuration:\n  METRICS_PORT: must differ from PORT (${e.PORT})`);
  }
  const missing = STRIPE_SETTINGS.filter((name) => !e[name]);
  if (missing.length > 0 && missing.length < STRIPE_SETTINGS.length) {
    throw new Error(
      `Invalid configuration:\n  payments need every Stripe setting; missing: ${missing.join(", ")} (or unset them all to run without payments)`,
    );
  }
  const dataDir = path.resolve(e.DATA_DIR);
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    dataDir,
    https: parseHttpsConfig(e, dataDir),
    databaseFile: e.DATABASE_URL?.startsWith("file:") ? fileURLToPath(e.DATABASE_URL) : path.join(dataDir, "daysync.sqlite"),
    databaseUrl: e.DATABASE_URL?.startsWith("file:") ? undefined : e.DATABASE_URL,
    logLevel: e.LOG_LEVEL,
    webDist: path.resolve(e.WEB_DIST ?? path.join(repoRoot, "apps/web/dist")),
    cookieSecure: e.COOKIE_SECURE,
    trustProxy: e.TRUST_PROXY,
    loginRateLimit: { max: e.LOGIN_RATE_LIMIT_MAX, windowMs: e.LOGIN_RATE_LIMIT_WINDOW_MS },
    registerRateLimit: { max: e.REGISTER_RATE_LIMIT_MAX, windowMs: e.REGISTER_RATE_LIMIT_WINDOW_MS },
    sendRateLimit: { max: e.SEND_RATE_LIMIT_MAX, windowMs: e.SEND_RATE_LIMIT_WINDOW_MS },
    discussions: {
      maxMembers: e.DISCUSSION_MAX_MEMBERS,
      joinRateLimit: { max: e.DISCUSSION_JOIN_RATE_LIMIT_MAX, windowMs: e.DISCUSSION_JOIN_RATE_LIMIT_WINDOW_MS },
      joinAddressRateLimit: { max: e.DISCUSSION_JOIN_ADDRESS_RATE_LIMIT_MAX, windowMs: e.DISCUSSION_JOIN_RATE_LIMIT_WINDOW_MS },
    },
    socketLimits: {
      livePerSession: e.LIVE_SOCKETS_PER_SESSION,
      livePerUser: e.LIVE_SOCKETS_PER_USER,
      liveAcceptPerSecond: e.LIVE_ACCEPT_PER_SECOND,
      pairPerAddress: e.PAIR_SOCKETS_PER_ADDRESS,
    },
    sweepIntervalMs: e.SWEEP_INTERVAL_MS,
    redis: e.REDIS_URL ? { url: e.REDIS_URL, prefix: e.REDIS_PREFIX } : undefined,
    liveSeqCheckMs: e.LIVE_SEQ_CHECK_MS,
    filesDir: path.resolve(e.FILES_DIR ?? path.join(dataDir, "files")),
    maxFileBytes: { free: e.FREE_MAX_FILE_BYTES, premium: e.PREMIUM_MAX_FILE_BYTES },
    storageBytes: { free: e.FREE_STORAGE_BYTES, premium: e.PREMIUM_STORAGE_BYTES },
    uploadExpiryMs: e.UPLOAD_EXPIRY_MS,
    metrics: { token: e.METRICS_TOKEN, port: e.METRICS_PORT, host: e.METRICS_HOST ?? e.HOST },
    identity,
    email,
    stripe:
      e.STRIPE_SECRET_KEY &&
      e.STRIPE_WEBHOOK_SECRET &&
      e.STRIPE_PRICE_PREMIUM_MONTHLY &&
      e.STRIPE_PRICE_EXTENSION_7D &&
      e.STRIPE_PRICE_EXTENSION_30D
        ? {
            secretKey: e.STRIPE_SECRET_KEY,
            webhookSecret: e.STRIPE_WEBHOOK_SECRET,
            apiUrl: e.STRIPE_API_URL,
            prices: {
              premiumMonthly: e.STRIPE_PRICE_PREMIUM_MONTHLY,
              extension7d: e.STRIPE_PRICE_EXTENSION_7D,
              extension30d: e.STRIPE_PRICE_EXTENSION_30D,
            },
          }
        : undefined,
    donationUrl: e.DONATION_URL,
    registration: e.REGISTRATION || undefined,
    site: {
      contactPhone: e.CONTACT_PHONE ?? null,
      contactEmail: e.CONTACT_EMAIL ?? null,
      brandLine: e.BRAND_LINE ?? null,
      appStoreUrl: e.APP_STORE_URL ?? null,
      playStoreUrl: e.PLAY_STORE_URL ?? null,
    },
  };
}
