import { PUSH_API, pushSubscriptionSchema, pushUnsubscribeSchema, responseSchemas } from "@daysync/shared";
import { type ApiServer, answers } from "../../http/answers.ts";
import { requireAuth } from "../../http/auth.ts";
import { parse } from "../../http/validate.ts";
import type { PushService } from "./push.service.ts";

export function pushRoutes(app: ApiServer, deps: { push: PushService }) {
  const { push } = deps;

  app.get(PUSH_API.publicKey, { schema: answers(responseSchemas.pushPublicKey) }, async (request) => {
    requireAuth(request);
    return { public_key: push.publicKey() };
  });

  app.post(PUSH_API.subscriptions, { schema: answers(responseSchemas.ok) }, async (request, reply) => {
    const auth = requireAuth(request);
    await push.subscribe(auth, parse(pushSubscriptionSchema, request.body));
    return reply.status(201).send({ ok: true });
  });

  app.delete(PUSH_API.subscriptions, async (request, reply) => {
    const auth = requireAuth(request);
    const { endpoint } = parse(pushUnsubscribeSchema, request.body);
    await push.unsubscribe(auth, endpoint);
    return reply.status(204).send();
  });
}
