import { API, retentionSchema } from "@daysync/shared";
import type { FastifyInstance } from "fastify";
import { requireAuth } from "../../http/auth.ts";
import { parse } from "../../http/validate.ts";
import type { PlansService } from "./plans.service.ts";

export function plansRoutes(app: FastifyInstance, deps: { plans: PlansService }) {
  app.put(API.retention, async (request) => {
    const auth = requireAuth(request);
    const { max_message_duration } = parse(retentionSchema, request.body);
    return { user: await deps.plans.setRetention(auth.userId, max_message_duration) };
  });
}
