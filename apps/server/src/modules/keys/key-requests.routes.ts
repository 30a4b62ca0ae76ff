import {
  answerKeyRequestSchema,
  approveKeyRequestSchema,
  confirmKeyRequestSchema,
  createKeyRequestSchema,
  KEYS_API,
  keyRequestIdParamsSchema,
  responseSchemas,
} from "@daysync/shared";
import { type ApiServer, answers } from "../../http/answers.ts";
import { requireAuth } from "../../http/auth.ts";
import { rateLimitPer } from "../../http/rate-limit.ts";
import { parse } from "../../http/validate.ts";
import type { KeyRequestsService } from "./key-requests.service.ts";

/**
 * Per device: a person asks a few times at most, and each request gives at most three guesses at its code
 * (docs/protocol/encryption.md, "Approving a device"). The steps of a request are a handful each.
 */
const asking = rateLimitPer("session", { max: 10, windowMs: 10 * 60_000 }, "approval requests");
const stepping = rateLimitPer("session", { max: 60, windowMs: 60_000 });

/** Typed-code approval of a locked device: every route is about a request of the caller's own account. */
export function keyRequestsRoutes(app: ApiServer, deps: { requests: KeyRequestsService }) {
  const { requests } = deps;
  const one = answers(responseSchemas.keyRequest);

  app.get(KEYS_API.requests, { config: stepping, schema: answers(responseSchemas.keyRequests) }, async (request) => {
    const auth = requireAuth(request);
    return { requests: await requests.list(auth.userId) };
  });

  app.post(KEYS_API.requests, { config: asking, schema: one }, async (request, reply) => {
    const auth = requireAuth(request);
    const { requester_share } = parse(createKeyRequestSchema, request.body);
    return reply.status(201).send({ request: await requests.create(auth.userId, auth.sessionId, requester_share) });
  });

  app.post("/api/keys/requests/:id/answer", { config: stepping, schema: one }, async (request) => {
    const auth = requireAuth(request);
    const { id } = parse(keyRequestIdParamsSchema, request.params);
    const body = parse(answerKeyRequestSchema, request.body);
    return { request: await requests.answer(auth.userId, auth.sessionId, id, body) };
  });

  app.post("/api/keys/requests/:id/confirm", { config: stepping, schema: one }, async (request) => {
    const auth = requireAuth(request);
    const { id } = parse(keyRequestIdParamsSchema, request.params);
    const { requester_confirmation } = parse(confirmKeyRequestSchema, request.body);
    return { request: await requests.confirm(auth.userId, auth.sessionId, id, requester_confirmation) };
  });

  app.post("/api/keys/requests/:id/reject", { config: stepping, schema: one }, async (request) => {
    const auth = requireAuth(request);
    const { id } = parse(keyRequestIdParamsSchema, request.params);
    return { request: await requests.reject(auth.userId, auth.sessionId, id) };
  });

  app.post("/api/keys/requests/:id/approve", { config: stepping, schema: one }, async (request) => {
    const auth = requireAuth(request);
    const { id } = parse(keyRequestIdParamsSchema, request.params);
    const body = parse(approveKeyRequestSchema, request.body);
    return { request: await requests.approve(auth.userId, auth.sessionId, id, body) };
  });

  app.post("/api/keys/requests/:id/deny", { config: stepping, schema: one }, async (request) => {
    const auth = requireAuth(request);
    const { id } = parse(keyRequestIdParamsSchema, request.params);
    return { request: await requests.deny(auth.userId, auth.sessionId, id) };
  });
}
