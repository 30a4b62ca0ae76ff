import {
  PAIRING_API,
  pairingApproveSchema,
  pairingCodeParamsSchema,
  pairingExchangeSchema,
  pairingOfferParamsSchema,
  pairingRequestBodySchema,
  responseSchemas,
} from "@daysync/shared";
import { type ApiServer, answers } from "../../http/answers.ts";
import { clientKindOf, deviceOf, requireAuth, setSessionCookie } from "../../http/auth.ts";
import { rateLimitPer } from "../../http/rate-limit.ts";
import { parse } from "../../http/validate.ts";
import type { PairingService } from "./pairing.service.ts";

/** Per address and minute: generous for a panel that refreshes every two minutes, tight for guessing short codes. */
const limit = (max: number) => rateLimitPer("address", { max, windowMs: 60_000 });

export function pairingRoutes(app: ApiServer, deps: { pairing: PairingService; cookieSecure: boolean }) {
  const { pairing } = deps;

  // Anonymous by design: the device asking has no session yet.
  app.post(PAIRING_API.requests, { config: limit(30), schema: answers(responseSchemas.pairingRequest) }, async (request, reply) => {
    const { requester_share, ...key } = parse(pairingRequestBodySchema, request.body);
    return reply.status(201).send(await pairing.create(deviceOf(request), key, requester_share));
  });

  app.get("/api/pair/requests/:code", { config: limit(60), schema: answers(responseSchemas.pairingDetails) }, async (request) => {
    requireAuth(request);
    const { code } = parse(pairingCodeParamsSchema, request.params);
    return { request: await pairing.details(code) };
  });

  app.post("/api/pair/requests/:code/approve", { config: limit(60) }, async (request, reply) => {
    const auth = requireAuth(request);
    const { code } = parse(pairingCodeParamsSchema, request.params);
    const { handover } = parse(pairingApproveSchema, request.body);
    await pairing.approve(code, auth, handover);
    return reply.status(204).send();
  });

  app.post("/api/pair/requests/:code/deny", { config: limit(60) }, async (request, reply) => {
    const auth = requireAuth(request);
    const { code } = parse(pairingCodeParamsSchema, request.params);
    await pairing.deny(code, auth);
    return reply.status(204).send();
  });

  // Anonymous: the token and the secret held only by the asking device are the proof.
  app.post(PAIRING_API.exchange, { config: limit(30), schema: answers(responseSchemas.pairingExchange) }, async (request, reply) => {
    const input = parse(pairingExchangeSchema, request.body);
    const { user, session } = await pairing.exchange(input, deviceOf(request));
    // The extension keeps its token itself: a cookie would replace the web app's session on the same browser.
    if (clientKindOf(request) !== undefined) return { user, session_token: session.token };
    setSessionCookie(reply, session.token, deps.cookieSecure);
    return { user };
  });

  // Add a device (decision 013): the signed-in device offers, the new device joins, the offering device answers.
  app.post(PAIRING_API.offers, { config: limit(30), schema: answers(responseSchemas.pairingOffer) }, async (request, reply) => {
    const auth = requireAuth(request);
    return reply.status(201).send(await pairing.createOffer(auth));
  });

  app.post("/api/pair/offers/:offer_id/approve", { config: limit(60) }, async (request, reply) => {
    const auth = requireAuth(request);
    const { offer_id } = parse(pairingOfferParamsSchema, request.params);
    const { handover } = parse(pairingApproveSchema, request.body);
    await pairing.approveOffer(offer_id, auth, handover);
    return reply.status(204).send();
  });

  app.post("/api/pair/offers/:offer_id/deny", { config: limit(60) }, async (request, reply) => {
    const auth = requireAuth(request);
    const { offer_id } = parse(pairingOfferParamsSchema, request.params);
    await pairing.denyOffer(offer_id, auth);
    return reply.status(204).send();
  });

  // Anonymous: the new device has no session yet; the code is all it has, and it grants nothing by itself.
  app.post("/api/pair/join/:code", { config: limit(30), schema: answers(responseSchemas.pairingJoined) }, async (request, reply) => {
    const { code } = parse(pairingCodeParamsSchema, request.params);
    const body = parse(pairingRequestBodySchema, request.body ?? {});
    return reply.status(201).send(await pairing.join(code, deviceOf(request), body));
  });
}
