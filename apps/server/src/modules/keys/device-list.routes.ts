import { appendDeviceListSchema, DEVICE_LIST_API, deviceListSchema, setSigningKeySchema } from "@daysync/shared";
import { type ApiServer, answers } from "../../http/answers.ts";
import { requireAuth } from "../../http/auth.ts";
import { parse } from "../../http/validate.ts";
import type { DeviceListService } from "./device-list.service.ts";

/** The caller's own account's signed device list, and its session's signing key. */
export function deviceListRoutes(app: ApiServer, deps: { list: DeviceListService }) {
  const { list } = deps;

  app.get(DEVICE_LIST_API.list, { schema: answers(deviceListSchema) }, async (request) => {
    const auth = requireAuth(request);
    return list.read(auth.userId);
  });

  app.post(DEVICE_LIST_API.append, { schema: answers(deviceListSchema) }, async (request, reply) => {
    const auth = requireAuth(request);
    const { entry } = parse(appendDeviceListSchema, request.body);
    return reply.status(201).send(await list.append(auth.userId, auth.sessionId, entry));
  });

  app.put(DEVICE_LIST_API.signingKey, async (request, reply) => {
    const auth = requireAuth(request);
    await list.setSigningKey(auth.userId, auth.sessionId, parse(setSigningKeySchema, request.body).signing_key);
    return reply.status(204).send();
  });
}
