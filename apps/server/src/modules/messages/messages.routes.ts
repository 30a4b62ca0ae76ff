import { API, dayIdParamsSchema, type Message, messageIdParamsSchema, searchQuerySchema, sendMessageSchema } from "@daysync/shared";
import type { FastifyInstance } from "fastify";
import type { RateLimit } from "../../config/config.ts";
import { requireAuth } from "../../http/auth.ts";
import { rateLimitPer } from "../../http/rate-limit.ts";
import { parse } from "../../http/validate.ts";
import type { SessionAuth } from "../accounts/sessions.repository.ts";
import type { MessagesService } from "./messages.service.ts";

export function messagesRoutes(
  app: FastifyInstance,
  deps: {
    messages: MessagesService;
    sendRateLimit: RateLimit;
    /** Told once about each new message and the device that sent it (push notifications). */
    onCreated?: (from: SessionAuth, message: Message) => void;
  },
) {
  const { messages } = deps;

  app.get(API.days, async (request) => {
    const auth = requireAuth(request);
    return { days: await messages.listDays(auth.userId) };
  });

  app.get("/api/days/:id/messages", async (request) => {
    const auth = requireAuth(request);
    const { id } = parse(dayIdParamsSchema, request.params);
    return messages.dayMessages(auth.userId, id);
  });

  app.post(API.messages, { config: rateLimitPer("session", deps.sendRateLimit, "messages") }, async (request, reply) => {
    const auth = requireAuth(request);
    const input = parse(sendMessageSchema, request.body);
    const { message, day, created } = await messages.send(auth.userId, input);
    if (created) deps.onCreated?.(auth, message);
    return reply.status(created ? 201 : 200).send({ message, day });
  });

  app.get("/api/messages/:id", async (request) => {
    const auth = requireAuth(request);
    const { id } = parse(messageIdParamsSchema, request.params);
    return messages.findMessage(auth.userId, id);
  });

  app.get(API.search, async (request) => {
    const auth = requireAuth(request);
    const { q } = parse(searchQuerySchema, request.query);
    return { results: await messages.search(auth.userId, q) };
  });
}
