/** /api/admin/*: every route asks first whether an admin's session is asking, and answers 404 to anyone else. */
import {
  ADMIN_API,
  adminAccountIdParamsSchema,
  adminAccountsQuerySchema,
  adminResponseSchemas,
  grantPremiumSchema,
  RESET_PASSWORD_API,
  resetPasswordRequestSchema,
} from "@daysync/shared";
import type { FastifyRequest } from "fastify";
import type { RateLimit } from "../../config/config.ts";
import { type ApiServer, answers } from "../../http/answers.ts";
import { rateLimitPer } from "../../http/rate-limit.ts";
import { parse } from "../../http/validate.ts";
import type { PasswordResetService } from "../accounts/password-reset.service.ts";
import type { AdminService } from "./admin.service.ts";

export function adminRoutes(
  app: ApiServer,
  deps: { admin: AdminService; resets: PasswordResetService; publicUrl: string | undefined; resetRateLimit: RateLimit },
) {
  const { admin } = deps;
  /** The asking admin; a 404 before anything else is read for anyone else. */
  const adminOf = (request: FastifyRequest) => admin.assertAdmin(request.auth?.userId);
  const idOf = (request: FastifyRequest) => parse(adminAccountIdParamsSchema, request.params).id;

  app.get(ADMIN_API.accounts, { schema: answers(adminResponseSchemas.accounts) }, async (request) => {
    await adminOf(request);
    const { q } = parse(adminAccountsQuerySchema, request.query);
    return { accounts: await admin.accounts(q) };
  });

  app.put("/api/admin/accounts/:id/premium", { schema: answers(adminResponseSchemas.account) }, async (request) => {
    const actor = await adminOf(request);
    const id = idOf(request);
    const { until } = parse(grantPremiumSchema, request.body);
    return { account: await admin.grantPremium(actor, id, until) };
  });

  app.delete("/api/admin/accounts/:id/premium", { schema: answers(adminResponseSchemas.account) }, async (request) => {
    const actor = await adminOf(request);
    return { account: await admin.endPremium(actor, idOf(request)) };
  });

  app.put("/api/admin/accounts/:id/disabled", { schema: answers(adminResponseSchemas.account) }, async (request) => {
    const actor = await adminOf(request);
    return { account: await admin.disable(actor, idOf(request)) };
  });

  app.delete("/api/admin/accounts/:id/disabled", { schema: answers(adminResponseSchemas.account) }, async (request) => {
    const actor = await adminOf(request);
    return { account: await admin.enable(actor, idOf(request)) };
  });

  app.delete("/api/admin/accounts/:id", { schema: answers(adminResponseSchemas.deleted) }, async (request) => {
    const actor = await adminOf(request);
    await admin.deleteAccount(actor, idOf(request));
    return { deleted: true as const };
  });

  app.post("/api/admin/accounts/:id/password-reset", { schema: answers(adminResponseSchemas.passwordReset) }, async (request) => {
    const actor = await adminOf(request);
    const baseUrl = deps.publicUrl ?? `${request.protocol}://${request.host}`;
    return admin.passwordResetLink(actor, idOf(request), baseUrl);
  });

  app.get(ADMIN_API.figures, { schema: answers(adminResponseSchemas.figures) }, async (request) => {
    await adminOf(request);
    return admin.figures();
  });

  app.get(ADMIN_API.audit, { schema: answers(adminResponseSchemas.audit) }, async (request) => {
    await adminOf(request);
    return { entries: await admin.auditLog() };
  });

  // The reset link's page: anyone holding a valid token, signed in or not.
  app.post(RESET_PASSWORD_API, { config: rateLimitPer("address", deps.resetRateLimit) }, async (request, reply) => {
    const { token, password } = parse(resetPasswordRequestSchema, request.body);
    await deps.resets.reset(token, password);
    return reply.status(204).send();
  });
}
