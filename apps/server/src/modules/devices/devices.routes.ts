import { DEVICES_API, deviceIdParamsSchema, renameDeviceSchema, responseSchemas } from "@daysync/shared";
import { type ApiServer, answers } from "../../http/answers.ts";
import { clearSessionCookie, requireAuth } from "../../http/auth.ts";
import { parse } from "../../http/validate.ts";
import type { DevicesService } from "./devices.service.ts";

export function devicesRoutes(app: ApiServer, deps: { devices: DevicesService; cookieSecure: boolean }) {
  const { devices } = deps;

  app.get(DEVICES_API.list, { schema: answers(responseSchemas.devices) }, async (request) => {
    const auth = requireAuth(request);
    return { devices: await devices.list(auth.userId, auth.sessionId) };
  });

  app.patch("/api/devices/:id", { schema: answers(responseSchemas.device) }, async (request) => {
    const auth = requireAuth(request);
    const { id } = parse(deviceIdParamsSchema, request.params);
    const { name } = parse(renameDeviceSchema, request.body);
    return { device: await devices.rename(auth.userId, id, auth.sessionId, name) };
  });

  app.post(DEVICES_API.signOutOthers, { schema: answers(responseSchemas.signedOutOthers) }, async (request) => {
    const auth = requireAuth(request);
    await devices.assertMaySignOut(auth.userId, auth.sessionId, "others");
    return { signed_out: await devices.signOutOthers(auth.userId, auth.sessionId) };
  });

  app.delete("/api/devices/:id", async (request, reply) => {
    const auth = requireAuth(request);
    const { id } = parse(deviceIdParamsSchema, request.params);
    await devices.assertMaySignOut(auth.userId, auth.sessionId, id);
    await devices.revoke(auth.userId, id);
    if (id === auth.sessionId) clearSessionCookie(reply, deps.cookieSecure);
    return reply.status(204).send();
  });
}
