/**
 * A deletion of a message of the user's own days, whichever road it came by (issue 47): `DELETE /api/messages/:id` or
 * a `delete` frame on the device's live socket. The same id schema, the same authorisation and the same unit of work,
 * so a refusal says the same, and deleting on one road then the other finds nothing the second time (404).
 */
import { messageIdParamsSchema } from "@daysync/shared";
import type { FastifyRequest } from "fastify";
import { requireAuth } from "../../http/auth.ts";
import { parse } from "../../http/validate.ts";
import type { MessagesService } from "./messages.service.ts";

/** `params` is `{ id }` as it came (the route's parameters, a frame's field): parsed here, so a bad id is a 400 naming `id`. */
export type OwnDelete = (request: FastifyRequest, params: unknown) => Promise<{ deleted: number }>;

export function ownDelete(deps: { messages: Pick<MessagesService, "deleteMessage"> }): OwnDelete {
  return async (request, params) => {
    const auth = requireAuth(request);
    const { id } = parse(messageIdParamsSchema, params);
    return { deleted: (await deps.messages.deleteMessage(auth, id)).length };
  };
}
