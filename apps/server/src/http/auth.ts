/** Resolves the session cookie of each API request; routes ask for it with requireAuth. */
import { CLIENT_HEADER, clientHeadersSchema, EXTENSION_AGENT_TOKEN, SESSION_COOKIE, sessionTokenOf } from "@daysync/shared";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Clock } from "../clock.ts";
import { userAgentWithModel } from "../presenters/device-name.ts";
import { unauthenticated } from "./errors.ts";
import { originKindOf } from "./origin.ts";
import { parse } from "./validate.ts";

export const SESSION_LIFETIME_MS = 180 * 24 * 60 * 60 * 1000;

/** Who asks: the signed-in device of a request. */
export interface SessionAuth {
  sessionId: string;
  userId: string;
  /** The device's name (its own, or from its User-Agent): what its messages are marked with, read with the session. */
  deviceName: string;
}

/** Finds the session a cookie's token stands for (the sessions repository). */
export interface SessionLookup {
  authenticate(token: string, now: number): Promise<SessionAuth | undefined>;
}

declare module "fastify" {
  interface FastifyRequest {
    auth: SessionAuth | null;
  }
}

export function registerAuth(app: FastifyInstance, deps: { sessions: SessionLookup; clock: Clock }) {
  app.decorateRequest("auth", null);
  app.addHook("onRequest", async (request) => {
    if (!request.url.startsWith("/api/")) return;
    // A token the client holds itself (the browser extension) wins over the browser's cookie jar, which may hold the
    // web app's session on the same browser; a request from an extension's origin never acts with that cookie (any
    // extension with host permission would otherwise act as the web app's session).
    const token = sessionTokenOf(request.headers) ?? (originKindOf(request) === "extension" ? undefined : request.cookies[SESSION_COOKIE]);
    if (token) request.auth = (await deps.sessions.authenticate(token, deps.clock.now())) ?? null;
  });
}

/** The signed-in device of this request, or a 401. */
export function requireAuth(request: FastifyRequest): SessionAuth {
  if (!request.auth) throw unauthenticated();
  return request.auth;
}

/** What the client says it is (client-kind.ts): undefined for a web page or the CLI; a 400 for any other value. */
export const clientKindOf = (request: FastifyRequest) =>
  parse(clientHeadersSchema, { [CLIENT_HEADER]: request.headers[CLIENT_HEADER] })[CLIENT_HEADER];

/**
 * The device a new session is made for: its browser (with the model its client hint gives, issue 43) and address, as
 * the request says them; the browser extension's User-Agent is marked as its own, so it is named for what it is.
 */
export const deviceOf = (request: FastifyRequest) => {
  const hint = request.headers["sec-ch-ua-model"];
  const userAgent = userAgentWithModel(request.headers["user-agent"] ?? "", typeof hint === "string" ? hint : undefined);
  return {
    userAgent: clientKindOf(request) === undefined ? userAgent : `${userAgent} ${EXTENSION_AGENT_TOKEN}`,
    ip: request.ip,
  };
};

export function setSessionCookie(reply: FastifyReply, token: string, secure: boolean) {
  reply.setCookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: "lax",
    secure,
    path: "/",
    maxAge: SESSION_LIFETIME_MS / 1000,
  });
}

export function clearSessionCookie(reply: FastifyReply, secure: boolean) {
  reply.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: "lax", secure, path: "/" });
}
