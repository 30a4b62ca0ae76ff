/** /api/admin/*: every route asks first whether an admin's session is asking, and answers 404 to anyone else. */
import {
  ADMIN_API,
  adminAccountIdParamsSchema,
  adminAccountsQuerySchema,
  adminResponseSchemas,
  grantPremiumSchema,
  RESET_PASSWORD_API,
  resetPasswordRequestSchema,
  responseSchemas,
} from "@daysync/shared";
import type { FastifyRequest } from "fastify";
import type { RateLimit } from "../../config/config.ts";
import { type ApiServer, answers } from "../../http/answers.ts";
import { setSessionCookie } from "../../http/auth.ts";
import { rateLimitPer } from "../../http/rate-limit.ts";
import { parse } from "../../http/validate.ts";
import type { AccountsService, PasswordResetService } from "../accounts/index.ts";
import type { DevicesService } from "../devices/index.ts";
import type { AdminService } from "./admin.service.ts";

export function adminRoutes(
  app: ApiServer,
  deps: {
    admin: AdminService;
    resets: PasswordResetService;
    publicUrl: string | undefined;
    resetRateLimit: RateLimit;
    /** The device that used a reset link is signed in afresh (every other one was signed out). */
    accounts: Pick<AccountsService, "signIn">;
    devices: Pick<DevicesService, "announceSignIn">;
    cookieSecure: boolean;
  },
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

  // The reset link's page: anyone holding a valid token, signed in or not; that device ends up signed in.
  const resetOptions = { config: rateLimitPer("address", deps.resetRateLimit), schema: answers(responseSchemas.user) };
  app.post(RESET_PASSWORD_API, resetOptions, async (request, reply) => {
    const { token, password } = parse(resetPasswordRequestSchema, request.body);
    const userId = await deps.resets.reset(token, password);
    const { user, session } = await deps.accounts.signIn(userId, { userAgent: request.headers["user-agent"] ?? "", ip: request.ip });
    await deps.devices.announceSignIn(user.id, session.id);
    setSessionCookie(reply, session.token, deps.cookieSecure);
    return { user };
  });
}
