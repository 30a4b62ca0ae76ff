import { API, responseSchemas, retentionSchema } from "@daysync/shared";
import { type ApiServer, answers } from "../../http/answers.ts";
import { requireAuth } from "../../http/auth.ts";
import { parse } from "../../http/validate.ts";
import type { PlansService } from "./plans.service.ts";

export function plansRoutes(app: ApiServer, deps: { plans: PlansService }) {
  app.put(API.retention, { schema: answers(responseSchemas.user) }, async (request) => {
    const auth = requireAuth(request);
    const { max_message_duration } = parse(retentionSchema, request.body);
    return { user: await deps.plans.setRetention(auth.userId, max_message_duration) };
  });
}
