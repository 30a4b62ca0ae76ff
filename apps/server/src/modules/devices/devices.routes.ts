import { DEVICES_API, deviceIdParamsSchema } from "@daysync/shared";
import type { FastifyInstance } from "fastify";
import { clearSessionCookie, requireAuth } from "../../http/auth.ts";
import { parse } from "../../http/validate.ts";
import type { DevicesService } from "./devices.service.ts";

export function devicesRoutes(app: FastifyInstance, deps: { devices: DevicesService; cookieSecure: boolean }) {
  const { devices } = deps;

  app.get(DEVICES_API.list, async (request) => {
    const auth = requireAuth(request);
    return { devices: await devices.list(auth.userId, auth.sessionId) };
  });

  app.delete("/api/devices/:id", async (request, reply) => {
    const auth = requireAuth(request);
    const { id } = parse(deviceIdParamsSchema, request.params);
    await devices.revoke(auth.userId, id);
    if (id === auth.sessionId) clearSessionCookie(reply, deps.cookieSecure);
    return reply.status(204).send();
  });
}
