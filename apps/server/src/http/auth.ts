/** Resolves the session cookie of each API request; routes ask for it with requireAuth. */
import { SESSION_COOKIE } from "@daysync/shared";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Clock } from "../clock.ts";
import { SESSION_LIFETIME_MS, type SessionAuth, type SessionsRepository } from "../modules/accounts/sessions.repository.ts";
import { unauthenticated } from "./errors.ts";

declare module "fastify" {
  interface FastifyRequest {
    auth: SessionAuth | null;
  }
}

export function registerAuth(app: FastifyInstance, deps: { sessions: SessionsRepository; clock: Clock }) {
  app.decorateRequest("auth", null);
  app.addHook("onRequest", async (request) => {
    if (!request.url.startsWith("/api/")) return;
    const token = request.cookies[SESSION_COOKIE];
    if (token) request.auth = (await deps.sessions.authenticate(token, deps.clock.now())) ?? null;
  });
}

/** The signed-in device of this request, or a 401. */
export function requireAuth(request: FastifyRequest): SessionAuth {
  if (!request.auth) throw unauthenticated();
  return request.auth;
}

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
