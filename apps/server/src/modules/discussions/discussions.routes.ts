import {
  createDiscussionSchema,
  DISCUSSIONS_API,
  discussionIdParamsSchema,
  discussionMemberParamsSchema,
  extendDiscussionSchema,
  joinDiscussionSchema,
  publicIdParamsSchema,
  renameDiscussionSchema,
  responseSchemas,
} from "@daysync/shared";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { RateLimit } from "../../config/config.ts";
import { type ApiServer, answers } from "../../http/answers.ts";
import { requireAuth } from "../../http/auth.ts";
import { tooManyRequests } from "../../http/errors.ts";
import { rateLimitPer } from "../../http/rate-limit.ts";
import { parse } from "../../http/validate.ts";
import type { DiscussionsService } from "./discussions.service.ts";

/** The limits of every way into a discussion by ID (per address, per session). */
export interface JoinLimits {
  onRequest: Array<(request: FastifyRequest, reply: FastifyReply) => Promise<void>>;
  config: ReturnType<typeof rateLimitPer>;
}

export function discussionsRoutes(
  app: ApiServer,
  deps: {
    discussions: DiscussionsService;
    /** Encrypted discussions' routes, given the same join limits. */
    rooms?: (joinLimits: JoinLimits) => void;
    /** Joins by ID per signed-in device. */
    joinRateLimit: RateLimit;
    /** Joins by ID per client address (all its devices and accounts together). */
    joinAddressRateLimit: RateLimit;
  },
) {
  const { discussions } = deps;
  const one = "/api/discussions/:id";

  app.get(DISCUSSIONS_API.list, { schema: answers(responseSchemas.discussions) }, async (request) => {
    const auth = requireAuth(request);
    return { discussions: await discussions.list(auth.userId) };
  });

  app.post(DISCUSSIONS_API.list, { schema: answers(responseSchemas.discussion) }, async (request, reply) => {
    const auth = requireAuth(request);
    const input = parse(createDiscussionSchema, request.body);
    return reply.status(201).send(await discussions.create(auth.userId, input));
  });

  app.get(one, { schema: answers(responseSchemas.discussion) }, async (request) => {
    const auth = requireAuth(request);
    const { id } = parse(discussionIdParamsSchema, request.params);
    return discussions.details(auth.userId, id);
  });

  app.patch(one, { schema: answers(responseSchemas.discussion) }, async (request) => {
    const auth = requireAuth(request);
    const { id } = parse(discussionIdParamsSchema, request.params);
    const { title } = parse(renameDiscussionSchema, request.body);
    return discussions.rename(auth.userId, id, title);
  });

  app.delete(one, async (request, reply) => {
    const auth = requireAuth(request);
    const { id } = parse(discussionIdParamsSchema, request.params);
    await discussions.end(auth.userId, id);
    return reply.status(204).send();
  });

  app.post(`${one}/leave`, async (request, reply) => {
    const auth = requireAuth(request);
    const { id } = parse(discussionIdParamsSchema, request.params);
    await discussions.leave(auth.userId, id);
    return reply.status(204).send();
  });

  app.delete(`${one}/members/:memberId`, { schema: answers(responseSchemas.discussion) }, async (request) => {
    const auth = requireAuth(request);
    const { id, memberId } = parse(discussionMemberParamsSchema, request.params);
    return discussions.removeMember(auth.userId, id, memberId);
  });

  app.post(`${one}/extend`, { schema: answers(responseSchemas.discussion) }, async (request) => {
    const auth = requireAuth(request);
    const { id } = parse(discussionIdParamsSchema, request.params);
    const { days } = parse(extendDiscussionSchema, request.body);
    return discussions.extend(auth.userId, id, days);
  });

  app.post(`${one}/read`, async (request, reply) => {
    const auth = requireAuth(request);
    const { id } = parse(discussionIdParamsSchema, request.params);
    await discussions.markRead(auth.userId, id);
    return reply.status(204).send();
  });

  // Counted per address as well as per device (the route's own limit). The plugin runs one limit hook per request,
  // so this one is checked by hand, before it.
  const addressCount = app.createRateLimit({
    max: deps.joinAddressRateLimit.max,
    timeWindow: deps.joinAddressRateLimit.windowMs,
    keyGenerator: (request: FastifyRequest) => `discussion-join:${request.ip}`,
  });
  const perAddress = async (request: FastifyRequest, reply: FastifyReply) => {
    const count = await addressCount(request);
    if (count.isAllowed || !count.isExceeded) return;
    reply.header("retry-after", String(count.ttlInSeconds));
    throw tooManyRequests(count.ttlInSeconds, "tries to join");
  };
  const joinLimits: JoinLimits = { onRequest: [perAddress], config: rateLimitPer("session", deps.joinRateLimit, "tries to join") };
  const joinOptions = { ...joinLimits, schema: answers(responseSchemas.discussion) };
  deps.rooms?.(joinLimits);
  app.post("/api/discussions/join/:publicId", joinOptions, async (request, reply) => {
    const auth = requireAuth(request);
    const { publicId } = parse(publicIdParamsSchema, request.params);
    const { display_name } = parse(joinDiscussionSchema, request.body);
    const { details, joined } = await discussions.join(auth.userId, publicId, display_name);
    return reply.status(joined ? 201 : 200).send(details);
  });
}
