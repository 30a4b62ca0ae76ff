/**
 * A send to the user's own days, whichever road it came by (issue 47): `POST /api/messages` or a `send` frame on the
 * device's live socket. One limit per device across both roads, the same schema and the same service (its unit of work
 * and its idempotency by the message's id), so the same message sent on both is stored once and a refusal says the same.
 */
import { sendSchemaFor } from "@daysync/shared";
import type { FastifyRequest } from "fastify";
import { requireAuth } from "../../http/auth.ts";
import type { SharedLimit } from "../../http/rate-limit.ts";
import { parse } from "../../http/validate.ts";
import type { MessagesService } from "./messages.service.ts";

export type OwnSend = (request: FastifyRequest, body: unknown) => ReturnType<MessagesService["send"]>;

export function ownSend(deps: { messages: Pick<MessagesService, "send">; limit: SharedLimit }): OwnSend {
  return async (request, body) => {
    const auth = requireAuth(request);
    await deps.limit(request);
    return deps.messages.send(auth, parse(sendSchemaFor(body), body));
  };
}
