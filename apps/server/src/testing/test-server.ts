/**
 * A real server on a loopback port with a fresh database and a clock the test can move. The database is a SQLite
 * file in the server's data folder, or, when the suite runs with a postgres:// DATABASE_URL, a database of its own there.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { API, formatStoredDate, formatStoredTime, SESSION_COOKIE, type ServerLiveMessage, type User } from "@daysync/shared";
import WebSocket from "ws";
import { type AppParts, buildApp } from "../app/build-app.ts";
import { loadConfig } from "../config/config.ts";
import type { LogStream } from "../http/http-server.ts";
import { createPgDatabaseFor } from "./pg-database.ts";
import { removeKeys, uniquePrefix } from "./test-redis.ts";

/** Noon today, local time: a test that moves the clock by minutes or hours stays on the same calendar day. */
function noonToday(): number {
  const noon = new Date();
  noon.setHours(12, 0, 0, 0);
  return noon.getTime();
}

export class TestClock {
  constructor(public current = noonToday()) {}
  now = () => this.current;
  advance(ms: number) {
    this.current += ms;
  }
}

export interface TestServer extends AppParts {
  url: string;
  dataDir: string;
  clock: TestClock;
  env: Record<string, string>;
  /** DATABASE_URL for another server that shares this one's database, as a second process would. */
  databaseUrl: string;
  /** Stops the server; its data stays when `keepData` is set, for a restart on the same folder. */
  close(options?: { keepData?: boolean }): Promise<void>;
}

export async function startTestServer(
  env: Record<string, string> = {},
  /**
   * `port`: listen there (a restart on the same data and port looks to clients like the same server); 0 picks a free one.
   * `logStream`: gets the server's log lines (at env's LOG_LEVEL, silent unless set).
   */
  options: { dataDir?: string; clock?: TestClock; port?: number; logStream?: LogStream } = {},
): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), "daysync-test-"));
  const suiteDatabase = process.env.DATABASE_URL;
  const pgDatabase =
    suiteDatabase?.startsWith("postgres") && !env.DATABASE_URL ? await createPgDatabaseFor(suiteDatabase, dataDir) : undefined;
  // The suite's Redis, when it runs with one: each test server under a prefix of its own.
  const redisPrefix = process.env.REDIS_URL && !env.REDIS_URL ? uniquePrefix() : undefined;
  const fullEnv: Record<string, string> = {
    NODE_ENV: "test",
    DATA_DIR: dataDir,
    ...(pgDatabase ? { DATABASE_URL: pgDatabase.url } : {}),
    ...(redisPrefix && process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL, REDIS_PREFIX: redisPrefix } : {}),
    LOG_LEVEL: "silent",
    WEB_DIST: path.join(dataDir, "no-web"),
    // Every test signs up its own users from one address, and as many as it likes (tests of REGISTRATION set it).
    REGISTER_RATE_LIMIT_MAX: "10000",
    REGISTRATION: "open",
    ...env,
  };
  const clock = options.clock ?? new TestClock();
  const parts = await buildApp(loadConfig(fullEnv), { clock, logStream: options.logStream }).catch(async (error: unknown) => {
    await pgDatabase?.drop();
    throw error;
  });
  await parts.app.listen({ port: options.port ?? 0, host: "127.0.0.1" });
  const address = parts.app.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    ...parts,
    url: `http://127.0.0.1:${port}`,
    dataDir,
    clock,
    env: fullEnv,
    databaseUrl: fullEnv.DATABASE_URL ?? pathToFileURL(path.join(dataDir, "daysync.sqlite")).href,
    async close(closeOptions) {
      await parts.app.close();
      if (closeOptions?.keepData) return;
      rmSync(dataDir, { recursive: true, force: true });
      await pgDatabase?.drop();
      if (redisPrefix) await removeKeys(redisPrefix);
    },
  };
}

export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

/** One device: an HTTP client that keeps its session cookie, and opens live connections with it. */
export class Device {
  cookie = "";
  constructor(readonly baseUrl: string) {}

  async request<T = Record<string, unknown>>(
    method: string,
    pathname: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse<T>> {
    const res = await fetch(this.baseUrl + pathname, {
      method,
      headers: {
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const setCookie = res.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`));
    if (setCookie) {
      const value = setCookie.split(";")[0] ?? "";
      this.cookie = value.endsWith("=") ? "" : value;
    }
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T, headers: res.headers };
  }

  /** A request with raw headers and body, for protocols other than JSON (tus, downloads). */
  raw(method: string, pathname: string, init: { headers?: Record<string, string>; body?: Uint8Array } = {}): Promise<Response> {
    return fetch(this.baseUrl + pathname, {
      method,
      headers: { ...(this.cookie ? { cookie: this.cookie } : {}), ...init.headers },
      body: init.body,
    });
  }

  get<T = Record<string, unknown>>(pathname: string) {
    return this.request<T>("GET", pathname);
  }

  post<T = Record<string, unknown>>(pathname: string, body?: unknown) {
    return this.request<T>("POST", pathname, body);
  }

  async register(name: string, email: string, password = "correct horse"): Promise<User> {
    const res = await this.post<{ user: User }>(API.register, { name, email, password, confirm_password: password });
    if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.user;
  }

  async login(email: string, password = "correct horse"): Promise<User> {
    const res = await this.post<{ user: User }>(API.login, { email, password });
    if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.user;
  }

  /** Opens the live connection and resumes from `since`. */
  async live(since = 0): Promise<LiveClient> {
    const client = await this.connectLive();
    client.socket.send(JSON.stringify({ type: "resume", since }));
    return client;
  }

  /** Opens the live connection without saying anything on it yet. */
  async connectLive(headers: Record<string, string> = {}): Promise<LiveClient> {
    const socket = new WebSocket(`${this.baseUrl.replace("http", "ws")}${API.live}`, {
      headers: { ...(this.cookie ? { cookie: this.cookie } : {}), ...headers },
    });
    const client = new LiveClient(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("unexpected-response", (_req, res) => reject(new Error(`live refused: ${res.statusCode}`)));
      socket.once("error", reject);
    });
    return client;
  }
}

/** Collects what the server sends on a live connection and waits for what a test expects. */
export class LiveClient {
  readonly received: ServerLiveMessage[] = [];
  closeCode: number | undefined;
  closeReason: string | undefined;
  private waiters: Array<() => void> = [];

  constructor(readonly socket: WebSocket) {
    socket.on("message", (raw) => {
      this.received.push(JSON.parse(String(raw)) as ServerLiveMessage);
      for (const w of this.waiters) w();
    });
    socket.on("close", (code, reason) => {
      this.closeCode = code;
      this.closeReason = String(reason);
      for (const w of this.waiters) w();
    });
  }

  events() {
    return this.received.flatMap((m) => (m.type === "event" ? [m] : []));
  }

  /** Resolves when `predicate` holds for what has arrived; rejects after `timeoutMs`. */
  async waitFor(predicate: (received: ServerLiveMessage[]) => boolean, timeoutMs = 3000): Promise<void> {
    if (predicate(this.received)) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out; received ${JSON.stringify(this.received)}`)), timeoutMs);
      const check = () => {
        if (predicate(this.received)) {
          clearTimeout(timer);
          this.waiters = this.waiters.filter((w) => w !== check);
          resolve();
        }
      };
      this.waiters.push(check);
    });
  }

  waitForClose(timeoutMs = 3000): Promise<number> {
    return new Promise((resolve, reject) => {
      if (this.closeCode !== undefined) return resolve(this.closeCode);
      const timer = setTimeout(() => reject(new Error("socket did not close")), timeoutMs);
      this.socket.once("close", (code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
  }

  close() {
    this.socket.close();
  }
}

/** A text message as a device would send it at the clock's current time. */
export function textMessage(content: string, now: number) {
  const at = new Date(now);
  return { id: crypto.randomUUID(), content, date: formatStoredDate(at), time: formatStoredTime(at) };
}
