/**
 * Sign-in through identity providers: the public list, each provider's start and callback (browser navigations,
 * answered with redirects), and, signed in, linking and unlinking. Errors of a navigation go back to /login (or,
 * for a link, to the page of sign-in methods) as a code the page words; JSON routes answer JSON errors.
 */
import { IDENTITY_API, linkProviderSchema, responseSchemas, SIGNED_IN_NOTICE_COOKIE } from "@daysync/shared";
import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { RateLimit } from "../../config/config.ts";
import { type ApiServer, answers } from "../../http/answers.ts";
import { deviceOf, requireAuth, setSessionCookie } from "../../http/auth.ts";
import { rateLimitPer, type SharedLimit } from "../../http/rate-limit.ts";
import { parse } from "../../http/validate.ts";
import { FLOW_LIFETIME_MS, type IdentitiesService, SignInFailure } from "./identities.service.ts";

const FLOW_COOKIE = "daysync_auth_flow";
/** A flow id as `start` makes them (base64url); any other cookie value is no flow, and never reaches a query. */
const flowIdSchema = z.string().regex(/^[A-Za-z0-9_-]{20,100}$/);
/** Each start stores a flow record: enough for people who click twice, too few to fill the table. */
const START_LIMIT = { max: 60, windowMs: 60_000 };

export function identitiesRoutes(
  app: ApiServer,
  deps: {
    identities: IdentitiesService;
    cookieSecure: boolean;
    linkRateLimit: RateLimit;
    /** Linking checks the current password: it counts against the account's one limit of those (issue 42). */
    passwordChecks: SharedLimit;
  },
) {
  const { identities, cookieSecure } = deps;
  const flowCookie = { httpOnly: true, sameSite: "lax", secure: cookieSecure, path: "/api/auth/" } as const;

  /** The navigation failed: back to a page that says why, in words made from the code. */
  function failed(reply: FastifyReply, failure: SignInFailure) {
    const query = new URLSearchParams({ error: failure.code, provider: failure.providerId });
    const page = failure.linkReturn ?? "/login";
    return reply.redirect(`${page}?${query}`, 303);
  }

  async function navigate(reply: FastifyReply, work: () => Promise<string>) {
    try {
      return reply.redirect(await work(), 303);
    } catch (error) {
      if (error instanceof SignInFailure) return failed(reply, error);
      throw error;
    }
  }

  app.get(IDENTITY_API.providers, { schema: answers(responseSchemas.providers) }, async () => ({ providers: identities.list() }));

  const start = (providerId: string, request: FastifyRequest, reply: FastifyReply) =>
    navigate(reply, async () => {
      const { return: returnTo, invite } = request.query as Record<string, unknown>;
      const { flowId, url } = await identities.startSignIn(providerId, returnTo, invite);
      reply.setCookie(FLOW_COOKIE, flowId, { ...flowCookie, maxAge: FLOW_LIFETIME_MS / 1000 });
      return url;
    });

  const callback = (providerId: string, request: FastifyRequest, reply: FastifyReply) =>
    navigate(reply, async () => {
      const flowId = flowIdSchema.safeParse(request.cookies[FLOW_COOKIE]).data;
      reply.clearCookie(FLOW_COOKIE, flowCookie);
      const query = new URL(request.url, "http://callback.invalid").searchParams;
      const outcome = await identities.finish(providerId, flowId, query, deviceOf(request));
      if (outcome.kind === "linked") return `${outcome.returnTo}?linked=${encodeURIComponent(providerId)}`;
      if (outcome.kind === "confirmed") return `${outcome.returnTo}?confirmed=${encodeURIComponent(providerId)}`;
      setSessionCookie(reply, outcome.session.token, cookieSecure);
      reply.setCookie(SIGNED_IN_NOTICE_COOKIE, "1", { sameSite: "lax", secure: cookieSecure, path: "/", maxAge: 60 });
      return outcome.returnTo;
    });

  const startOptions = { config: rateLimitPer("address", START_LIMIT, "sign-in attempts") };
  app.get<{ Params: { id: string } }>("/api/auth/oidc/:id/start", startOptions, (request, reply) =>
    start(request.params.id, request, reply),
  );
  app.get<{ Params: { id: string } }>("/api/auth/oidc/:id/callback", (request, reply) => callback(request.params.id, request, reply));
  app.get("/api/auth/github/start", startOptions, (request, reply) => start("github", request, reply));
  app.get("/api/auth/github/callback", (request, reply) => callback("github", request, reply));

  const linkOptions = { config: rateLimitPer("address", deps.linkRateLimit), schema: answers(responseSchemas.linkStart) };
  app.post<{ Params: { provider: string } }>(
    "/api/auth/link/:provider",
    { ...linkOptions, onRequest: deps.passwordChecks },
    async (request, reply) => {
      const auth = requireAuth(request);
      const { password } = parse(linkProviderSchema, request.body);
      const { flowId, url } = await identities.startLink(auth, request.params.provider, password);
      reply.setCookie(FLOW_COOKIE, flowId, { ...flowCookie, maxAge: FLOW_LIFETIME_MS / 1000 });
      return { redirect: url };
    },
  );

  // Settings: a fresh check at a linked provider, for an account without a password to type.
  app.post<{ Params: { provider: string } }>("/api/auth/confirm/:provider", linkOptions, async (request, reply) => {
    const auth = requireAuth(request);
    const { flowId, url } = await identities.startConfirm(auth.userId, auth.sessionId, request.params.provider);
    reply.setCookie(FLOW_COOKIE, flowId, { ...flowCookie, maxAge: FLOW_LIFETIME_MS / 1000 });
    return { redirect: url };
  });

  app.get(IDENTITY_API.identities, { schema: answers(responseSchemas.identities) }, async (request) =>
    identities.linked(requireAuth(request).userId),
  );

  app.delete<{ Params: { id: string } }>("/api/auth/identities/:id", async (request, reply) => {
    await identities.unlink(requireAuth(request).userId, request.params.id);
    return reply.status(204).send();
  });
}
