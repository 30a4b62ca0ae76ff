/** Route limits of @fastify/rate-limit, counted per client address or per signed-in device, answered with our JSON 429. */
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { RateLimit } from "../config/config.ts";
import { tooManyRequests } from "./errors.ts";

const keys = {
  address: (request: FastifyRequest) => request.ip,
  /** A signed-in device is one session; requests without one are counted by address (they get a 401 anyway). */
  session: (request: FastifyRequest) => (request.auth ? `session:${request.auth.sessionId}` : request.ip),
};

/** `what` names what was counted in the 429's message ("Too many messages. Try again in 3 seconds."). */
export function rateLimitPer(key: keyof typeof keys, limit: RateLimit, what?: string) {
  return {
    rateLimit: {
      max: limit.max,
      timeWindow: limit.windowMs,
      keyGenerator: keys[key],
      errorResponseBuilder: (_request: FastifyRequest, context: { ttl: number }) => tooManyRequests(Math.ceil(context.ttl / 1000), what),
    },
  };
}

/** An onRequest hook that a route runs to count a request against a limit it shares with other routes. */
export type SharedLimit = (request: FastifyRequest) => Promise<void>;

/**
 * One limit several routes share, counted per signed-in account (by address without a session): every check of an
 * account's password counts against one number, whichever route and whichever of its sessions asks (issue 42). Kept
 * in the rate-limit store, so in Redis across processes when the server has it. `name` keeps its counts apart.
 */
export function sharedLimitPerAccount(app: FastifyInstance, name: string, limit: RateLimit, what?: string): SharedLimit {
  return sharedLimit(app, name, limit, what, (auth) => `account:${auth.userId}`);
}

/**
 * One limit per signed-in device that a route and the live socket share (issue 47): a message counts the same whether
 * it came over HTTP or as a frame. The socket checks it with its handshake's request, which holds the session.
 */
export function sharedLimitPerSession(app: FastifyInstance, name: string, limit: RateLimit, what?: string): SharedLimit {
  return sharedLimit(app, name, limit, what, (auth) => `session:${auth.sessionId}`);
}

function sharedLimit(
  app: FastifyInstance,
  name: string,
  limit: RateLimit,
  what: string | undefined,
  keyOf: (auth: NonNullable<FastifyRequest["auth"]>) => string,
): SharedLimit {
  const count = app.createRateLimit({
    max: limit.max,
    timeWindow: limit.windowMs,
    keyGenerator: (request) => `${name}:${request.auth ? keyOf(request.auth) : request.ip}`,
  });
  return async (request) => {
    const outcome = await count(request);
    if (!outcome.isAllowed && outcome.isExceeded) throw tooManyRequests(Math.max(1, outcome.ttlInSeconds), what);
  };
}
