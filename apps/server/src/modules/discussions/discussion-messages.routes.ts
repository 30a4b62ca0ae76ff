import { discussionIdParamsSchema, discussionMessageParamsSchema, responseSchemas, sendDiscussionMessageSchema } from "@daysync/shared";
import type { RateLimit } from "../../config/config.ts";
import { type ApiServer, answers } from "../../http/answers.ts";
import { requireAuth } from "../../http/auth.ts";
import { rateLimitPer } from "../../http/rate-limit.ts";
import { parse } from "../../http/validate.ts";
import type { DiscussionMessagesService } from "./discussion-messages.service.ts";

/** The paths of `DISCUSSIONS_API.messages` and `.message`. */
const MESSAGES = "/api/discussions/:id/messages";
const MESSAGE = "/api/discussions/:id/messages/:messageId";

export function discussionMessagesRoutes(
  app: ApiServer,
  deps: {
    discussionMessages: DiscussionMessagesService;
    sendRateLimit: RateLimit;
    /** Told about messages deleted, before the answer: removes the file of a file message. */
    onDeleted?: (messageIds: string[]) => Promise<void>;
  },
) {
  const { discussionMessages } = deps;

  app.get(MESSAGES, { schema: answers(responseSchemas.discussionMessages) }, async (request) => {
    const auth = requireAuth(request);
    const { id } = parse(discussionIdParamsSchema, request.params);
    return discussionMessages.list(auth.userId, id);
  });

  const sendOptions = {
    config: rateLimitPer("session", deps.sendRateLimit, "messages"),
    schema: answers(responseSchemas.discussionMessage),
  };
  app.post(MESSAGES, sendOptions, async (request, reply) => {
    const auth = requireAuth(request);
    const { id } = parse(discussionIdParamsSchema, request.params);
    const input = parse(sendDiscussionMessageSchema, request.body);
    const { message, created } = await discussionMessages.send(auth, id, input);
    return reply.status(created ? 201 : 200).send({ message });
  });

  app.delete(MESSAGE, { schema: answers(responseSchemas.deleted) }, async (request) => {
    const auth = requireAuth(request);
    const { id, messageId } = parse(discussionMessageParamsSchema, request.params);
    const ids = await discussionMessages.delete(auth, id, messageId);
    if (ids.length > 0) await deps.onDeleted?.(ids);
    return { deleted: ids.length };
  });
}
