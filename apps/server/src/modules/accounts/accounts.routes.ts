import { API, loginSchema, registerInviteSchema, registerRequestSchema, responseSchemas } from "@daysync/shared";
import type { RateLimit } from "../../config/config.ts";
import { type ApiServer, answers } from "../../http/answers.ts";
import { clearSessionCookie, deviceOf, requireAuth, setSessionCookie } from "../../http/auth.ts";
import { rateLimitPer } from "../../http/rate-limit.ts";
import { parse } from "../../http/validate.ts";
import type { DevicesService } from "../devices/index.ts";
import type { AccountsService } from "./accounts.service.ts";
import type { SessionsRepository } from "./sessions.repository.ts";

export function accountsRoutes(
  app: ApiServer,
  deps: {
    accounts: AccountsService;
    sessions: SessionsRepository;
    /** Tells the user's other devices that this one signed in, and ends a session on Logout as the Devices list does. */
    devices: Pick<DevicesService, "announceSignIn" | "endSession">;
    cookieSecure: boolean;
    loginRateLimit: RateLimit;
    registerRateLimit: RateLimit;
  },
) {
  const { accounts, cookieSecure } = deps;

  const registerOptions = { config: rateLimitPer("address", deps.registerRateLimit), schema: answers(responseSchemas.user) };
  app.post(API.register, registerOptions, async (request, reply) => {
    const input = parse(registerRequestSchema, request.body);
    const { invite } = parse(registerInviteSchema, request.body);
    const { user, session } = await accounts.register(input, deviceOf(request), invite);
    setSessionCookie(reply, session.token, cookieSecure);
    return reply.status(201).send({ user });
  });

  const loginOptions = { config: rateLimitPer("address", deps.loginRateLimit), schema: answers(responseSchemas.user) };
  app.post(API.login, loginOptions, async (request, reply) => {
    const input = parse(loginSchema, request.body);
    const { user, session } = await accounts.login(input, deviceOf(request));
    await deps.devices.announceSignIn(user.id, session.id);
    setSessionCookie(reply, session.token, cookieSecure);
    return { user };
  });

  app.post(API.logout, async (request, reply) => {
    if (request.auth) {
      await deps.devices.endSession(request.auth.userId, request.auth.sessionId);
      // Forgotten here at once too: the bus's own forget may come a Redis round trip later, after this reply.
      deps.sessions.forget(request.auth.sessionId);
    }
    clearSessionCookie(reply, cookieSecure);
    return reply.status(204).send();
  });

  app.get(API.session, { schema: answers(responseSchemas.session) }, async (request) => ({
    user: request.auth ? await accounts.me(request.auth.userId) : null,
  }));

  app.get(API.me, { schema: answers(responseSchemas.user) }, async (request) => {
    const auth = requireAuth(request);
    return { user: await accounts.me(auth.userId) };
  });
}
