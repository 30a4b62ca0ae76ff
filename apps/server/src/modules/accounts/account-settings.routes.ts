/** The Settings page's routes (issue 26): each asks for the signed-in device, parses with the shared schema, calls the service. */
import {
  changeEmailSchema,
  changeNameSchema,
  changePasswordSchema,
  deleteAccountSchema,
  SETTINGS_API,
  settingsResponseSchemas,
} from "@daysync/shared";
import type { FastifyRequest } from "fastify";
import { type ApiServer, answers } from "../../http/answers.ts";
import { clearSessionCookie, requireAuth } from "../../http/auth.ts";
import type { SharedLimit } from "../../http/rate-limit.ts";
import { parse } from "../../http/validate.ts";
import type { AccountSettingsService } from "./account-settings.service.ts";

const askerOf = (request: FastifyRequest) => {
  const auth = requireAuth(request);
  return { userId: auth.userId, sessionId: auth.sessionId };
};

export function accountSettingsRoutes(
  app: ApiServer,
  deps: {
    settings: AccountSettingsService;
    cookieSecure: boolean;
    /** Whatever checks the current password counts against one limit per account (issue 42), shared with linking a provider. */
    passwordChecks: SharedLimit;
  },
) {
  const { settings } = deps;
  const checked = { onRequest: deps.passwordChecks };

  app.get(SETTINGS_API.confirmation, { schema: answers(settingsResponseSchemas.confirmation) }, async (request) =>
    settings.confirmation(askerOf(request)),
  );

  app.put(SETTINGS_API.name, { schema: answers(settingsResponseSchemas.user) }, async (request) => {
    const asker = askerOf(request);
    const { name } = parse(changeNameSchema, request.body);
    return { user: await settings.changeName(asker, name) };
  });

  app.put(SETTINGS_API.email, { ...checked, schema: answers(settingsResponseSchemas.user) }, async (request) => {
    const asker = askerOf(request);
    return { user: await settings.changeEmail(asker, parse(changeEmailSchema, request.body)) };
  });

  app.put(SETTINGS_API.password, { ...checked, schema: answers(settingsResponseSchemas.passwordChanged) }, async (request) => {
    const asker = askerOf(request);
    return { signed_out: await settings.changePassword(asker, parse(changePasswordSchema, request.body)) };
  });

  app.delete(SETTINGS_API.account, checked, async (request, reply) => {
    const asker = askerOf(request);
    await settings.deleteAccount(asker, parse(deleteAccountSchema, request.body));
    clearSessionCookie(reply, deps.cookieSecure);
    return reply.status(204).send();
  });
}
