/** Route limits of @fastify/rate-limit, counted per client address or per signed-in device, answered with our JSON 429. */
import type { FastifyRequest } from "fastify";
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
