import {
  API,
  dayIdParamsSchema,
  discussionIdParamsSchema,
  discussionMessageParamsSchema,
  messageIdParamsSchema,
  messagesPageQuerySchema,
  responseSchemas,
  searchQuerySchema,
  sendDiscussionMessageSchema,
  sendRoomMessageSchema,
} from "@daysync/shared";
import type { z } from "zod";
import type { RateLimit } from "../../config/config.ts";
import { type ApiServer, answers } from "../../http/answers.ts";
import { requireAuth } from "../../http/auth.ts";
import { rateLimitPer } from "../../http/rate-limit.ts";
import { parse } from "../../http/validate.ts";
import type { MessagesService } from "./messages.service.ts";
import type { OwnDelete } from "./own-delete.ts";
import type { OwnSend } from "./own-send.ts";

/** The paths of `DISCUSSIONS_API.messages` and `.message`. */
const DISCUSSION_MESSAGES = "/api/discussions/:id/messages";
const DISCUSSION_MESSAGE = "/api/discussions/:id/messages/:messageId";

/** The messages of every space: a day's (the personal space's) and a discussion's. */
export function messagesRoutes(
  app: ApiServer,
  deps: { messages: MessagesService; send: OwnSend; remove: OwnDelete; sendRateLimit: RateLimit },
) {
  const { messages } = deps;

  app.get(API.days, { schema: answers(responseSchemas.days) }, async (request) => {
    const auth = requireAuth(request);
    return { days: await messages.listDays(auth.userId) };
  });

  app.get("/api/days/:id/messages", { schema: answers(responseSchemas.dayMessages) }, async (request) => {
    const auth = requireAuth(request);
    const { id } = parse(dayIdParamsSchema, request.params);
    return messages.dayMessages(auth.userId, id);
  });

  // The hottest routes: a send's small JSON answer skips the compression plugin's hooks (decision 014).
  const sendOptions = <S extends z.ZodType>(answer: S) => ({ schema: answers(answer), compress: false, decompress: false }) as const;
  // Counted by `send`, in the count the live socket's sends share.
  app.post(API.messages, sendOptions(responseSchemas.message), async (request, reply) => {
    const { message, day, created } = await deps.send(request, request.body);
    return reply.status(created ? 201 : 200).send({ message, day });
  });

  app.get(API.messages, { schema: answers(responseSchemas.messagesPage) }, async (request) => {
    const auth = requireAuth(request);
    const { before, limit } = parse(messagesPageQuerySchema, request.query);
    return messages.page(auth.userId, before, limit);
  });

  app.get("/api/messages/:id", { schema: answers(responseSchemas.message) }, async (request) => {
    const auth = requireAuth(request);
    const { id } = parse(messageIdParamsSchema, request.params);
    return messages.findMessage(auth.userId, id);
  });

  // Also reached as a `delete` frame on the live socket (issue 47).
  app.delete("/api/messages/:id", { schema: answers(responseSchemas.deleted) }, async (request) => deps.remove(request, request.params));

  app.delete("/api/days/:id/messages", { schema: answers(responseSchemas.deleted) }, async (request) => {
    const auth = requireAuth(request);
    const { id } = parse(dayIdParamsSchema, request.params);
    return { deleted: (await messages.clearDay(auth, id)).length };
  });

  app.get(API.search, { schema: answers(responseSchemas.search) }, async (request) => {
    const auth = requireAuth(request);
    const { q } = parse(searchQuerySchema, request.query);
    return { results: await messages.search(auth.userId, q) };
  });

  app.get(DISCUSSION_MESSAGES, { schema: answers(responseSchemas.discussionMessages) }, async (request) => {
    const auth = requireAuth(request);
    const { id } = parse(discussionIdParamsSchema, request.params);
    return messages.discussionMessages(auth.userId, id);
  });

  const discussionSendOptions = {
    ...sendOptions(responseSchemas.discussionMessage),
    config: rateLimitPer("session", deps.sendRateLimit, "messages"),
  };
  app.post(DISCUSSION_MESSAGES, discussionSendOptions, async (request, reply) => {
    const auth = requireAuth(request);
    const { id } = parse(discussionIdParamsSchema, request.params);
    const sealed = typeof request.body === "object" && request.body !== null && "generation" in request.body;
    const input = sealed ? parse(sendRoomMessageSchema, request.body) : parse(sendDiscussionMessageSchema, request.body);
    const { message, created } = await messages.sendToDiscussion(auth, id, input);
    return reply.status(created ? 201 : 200).send({ message });
  });

  app.delete(DISCUSSION_MESSAGE, { schema: answers(responseSchemas.deleted) }, async (request) => {
    const auth = requireAuth(request);
    const { id, messageId } = parse(discussionMessageParamsSchema, request.params);
    return { deleted: (await messages.deleteFromDiscussion(auth, id, messageId)).length };
  });
}
