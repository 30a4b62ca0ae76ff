/** The HTTP API of docs/API.md as the command line calls it: session cookie, checked answers, errors a person can act on. */
import { hostname } from "node:os";
import { cliUserAgent, responseSchemas, SESSION_COOKIE } from "@daysync/shared";
import type { z } from "zod";
import packageJson from "../package.json" with { type: "json" };
import { CliError, EXIT, networkCause, signedOut, unreachable } from "./errors.ts";

const SYSTEMS: Record<string, string> = { linux: "Linux", darwin: "macOS", win32: "Windows", freebsd: "FreeBSD", openbsd: "OpenBSD" };

/** Names this machine in the Devices list: "daysync CLI on <hostname>". */
export const USER_AGENT = cliUserAgent(packageJson.version, hostname(), SYSTEMS[process.platform] ?? process.platform);

export const REQUEST_TIMEOUT_MS = 30_000;

/** An answer outside 2xx, with the server's own sentence. */
export class ApiError extends CliError {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message, status === 413 ? EXIT.tooLarge : status === 404 ? EXIT.notFound : EXIT.failure);
  }
}

export class ApiClient {
  constructor(
    readonly server: string,
    /** The session cookie's value; null before sign-in. */
    readonly token: string | null,
  ) {}

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return {
      "user-agent": USER_AGENT,
      ...(this.token ? { cookie: `${SESSION_COOKIE}=${encodeURIComponent(this.token)}` } : {}),
      ...extra,
    };
  }

  /** fetch with our headers; network failures become "cannot reach", a 401 with a session becomes "signed out". */
  async fetch(method: string, pathname: string, init: { body?: string; headers?: Record<string, string>; timeoutMs?: number } = {}) {
    let res: Response;
    try {
      res = await fetch(this.server + pathname, {
        method,
        headers: this.headers(init.headers),
        body: init.body,
        redirect: "manual",
        signal: init.timeoutMs === 0 ? undefined : AbortSignal.timeout(init.timeoutMs ?? REQUEST_TIMEOUT_MS),
      });
    } catch (error) {
      throw unreachable(this.server, networkCause(error));
    }
    if (res.status === 401 && this.token) throw signedOut(this.server);
    if (res.status >= 400) throw await this.errorOf(res, method, pathname);
    return res;
  }

  /** A JSON request whose answer is checked against `schema`. */
  async json<T>(
    method: string,
    pathname: string,
    schema: z.ZodType<T>,
    body?: unknown,
    timeoutMs?: number,
  ): Promise<{ body: T; res: Response }> {
    const res = await this.fetch(method, pathname, {
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: body === undefined ? {} : { "content-type": "application/json" },
      timeoutMs,
    });
    const text = await res.text();
    const parsed = schema.safeParse(parseJson(text));
    if (!parsed.success) throw this.notDaysync(method, pathname, `answered ${res.status} with an unexpected body`);
    return { body: parsed.data, res };
  }

  get<T>(pathname: string, schema: z.ZodType<T>): Promise<T> {
    return this.json("GET", pathname, schema).then((r) => r.body);
  }

  /** A request answered with 204 No Content. */
  async send(method: string, pathname: string, body?: unknown): Promise<Response> {
    return this.fetch(method, pathname, {
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: body === undefined ? {} : { "content-type": "application/json" },
    });
  }

  private async errorOf(res: Response, method: string, pathname: string): Promise<CliError> {
    const parsed = responseSchemas.error.safeParse(parseJson(await res.text().catch(() => "")));
    if (!parsed.success) return this.notDaysync(method, pathname, `answered ${res.status}`);
    const { code, message } = parsed.data.error;
    const retryAfter = Number(res.headers.get("retry-after"));
    if (res.status >= 500) return new ApiError(res.status, code, `The server at ${this.server} failed: ${message}`);
    return new ApiError(res.status, code, message, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined);
  }

  private notDaysync(method: string, pathname: string, what: string) {
    return new CliError(`${this.server} does not look like a Daysync server: ${method} ${pathname} ${what}.`, EXIT.failure);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The session token a sign-in answer sets, from its Set-Cookie header. */
export function sessionTokenOf(res: Response): string | undefined {
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`));
  const value = cookie?.split(";")[0]?.slice(SESSION_COOKIE.length + 1);
  return value ? decodeURIComponent(value) : undefined;
}
