import { createEpochSchema, KEYS_API, ownWrapsSchema, responseSchemas, setDeviceKeySchema } from "@daysync/shared";
import { type ApiServer, answers } from "../../http/answers.ts";
import { requireAuth } from "../../http/auth.ts";
import { parse } from "../../http/validate.ts";
import type { KeysService } from "./keys.service.ts";

/** The asking device's keys and its account's epochs: every route is about the caller's own account only. */
export function keysRoutes(app: ApiServer, deps: { keys: KeysService }) {
  const { keys } = deps;

  app.get(KEYS_API.keys, { schema: answers(responseSchemas.keys) }, async (request) => {
    const auth = requireAuth(request);
    return keys.state(auth.userId, auth.sessionId);
  });

  app.put(KEYS_API.device, { schema: answers(responseSchemas.deviceKey) }, async (request) => {
    const auth = requireAuth(request);
    const { public_key } = parse(setDeviceKeySchema, request.body);
    return keys.setDeviceKey(auth.userId, auth.sessionId, public_key);
  });

  app.put(KEYS_API.ownWraps, { schema: answers(responseSchemas.keys) }, async (request) => {
    const auth = requireAuth(request);
    return keys.replaceOwnWraps(auth.userId, auth.sessionId, parse(ownWrapsSchema, request.body));
  });

  app.post(KEYS_API.startOver, { schema: answers(responseSchemas.keys) }, async (request) => {
    const auth = requireAuth(request);
    return keys.requestStartOver(auth.userId, auth.sessionId);
  });

  app.delete(KEYS_API.startOver, { schema: answers(responseSchemas.keys) }, async (request) => {
    const auth = requireAuth(request);
    return keys.cancelStartOver(auth.userId, auth.sessionId);
  });

  app.post(KEYS_API.epochs, { schema: answers(responseSchemas.keys) }, async (request, reply) => {
    const auth = requireAuth(request);
    const body = parse(createEpochSchema, request.body);
    return reply.status(201).send(await keys.createEpoch(auth.userId, auth.sessionId, body));
  });
}
