import {
  API,
  dayIdParamsSchema,
  type Message,
  messageIdParamsSchema,
  responseSchemas,
  searchQuerySchema,
  sendMessageSchema,
} from "@daysync/shared";
import type { RateLimit } from "../../config/config.ts";
import { type ApiServer, answers } from "../../http/answers.ts";
import { requireAuth } from "../../http/auth.ts";
import { rateLimitPer } from "../../http/rate-limit.ts";
import { parse } from "../../http/validate.ts";
import type { SessionAuth } from "../accounts/sessions.repository.ts";
import type { MessagesService } from "./messages.service.ts";

export function messagesRoutes(
  app: ApiServer,
  deps: {
    messages: MessagesService;
    sendRateLimit: RateLimit;
    /** Told once about each new message and the device that sent it (push notifications). */
    onCreated?: (from: SessionAuth, message: Message) => void;
    /** Told about messages the user deleted, before the answer: removes their files, closes their notifications. */
    onDeleted?: (from: SessionAuth, deleted: { messageIds: string[]; dayIds: string[] }) => Promise<void>;
  },
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

  // The hottest route: its small JSON answer skips the compression plugin's hooks (decision 014).
  const sendOptions = {
    config: rateLimitPer("session", deps.sendRateLimit, "messages"),
    schema: answers(responseSchemas.message),
    compress: false,
    decompress: false,
  } as const;
  app.post(API.messages, sendOptions, async (request, reply) => {
    const auth = requireAuth(request);
    const input = parse(sendMessageSchema, request.body);
    const { message, day, created } = await messages.send(auth.userId, input, { id: auth.sessionId, name: auth.deviceName });
    if (created) deps.onCreated?.(auth, message);
    return reply.status(created ? 201 : 200).send({ message, day });
  });

  app.get("/api/messages/:id", { schema: answers(responseSchemas.message) }, async (request) => {
    const auth = requireAuth(request);
    const { id } = parse(messageIdParamsSchema, request.params);
    return messages.findMessage(auth.userId, id);
  });

  app.delete("/api/messages/:id", { schema: answers(responseSchemas.deleted) }, async (request) => {
    const auth = requireAuth(request);
    const { id } = parse(messageIdParamsSchema, request.params);
    const ids = await messages.deleteMessage(auth.userId, id);
    await deps.onDeleted?.(auth, { messageIds: ids, dayIds: [] });
    return { deleted: ids.length };
  });

  app.delete("/api/days/:id/messages", { schema: answers(responseSchemas.deleted) }, async (request) => {
    const auth = requireAuth(request);
    const { id } = parse(dayIdParamsSchema, request.params);
    const ids = await messages.clearDay(auth.userId, id);
    if (ids.length > 0) await deps.onDeleted?.(auth, { messageIds: ids, dayIds: [id] });
    return { deleted: ids.length };
  });

  app.get(API.search, { schema: answers(responseSchemas.search) }, async (request) => {
    const auth = requireAuth(request);
    const { q } = parse(searchQuerySchema, request.query);
    return { results: await messages.search(auth.userId, q) };
  });
}
