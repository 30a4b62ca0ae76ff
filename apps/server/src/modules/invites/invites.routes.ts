/** The public site settings (registration mode, the owner's details) and the admin's invite links. */

import { ADMIN_API, inviteLinkSchema, SITE_API, type SiteConfig, siteConfigSchema } from "@daysync/shared";
import type { AdminGate } from "../../access/audit.ts";
import { type ApiServer, answers } from "../../http/answers.ts";
import type { RegistrationService } from "./registration.service.ts";

export function invitesRoutes(
  app: ApiServer,
  deps: {
    registration: RegistrationService;
    admin: AdminGate;
    /** What `GET /api/site` answers besides the registration mode, fixed at start. */
    site: Omit<SiteConfig, "registration">;
    publicUrl: string | undefined;
  },
) {
  const { registration } = deps;

  app.get(SITE_API.config, { schema: answers(siteConfigSchema) }, async () => ({
    registration: await registration.mode(),
    ...deps.site,
  }));

  // Like every admin route: a 404 before anything else to anyone but an admin.
  app.post(ADMIN_API.invites, { schema: answers(inviteLinkSchema) }, async (request, reply) => {
    const actor = await deps.admin.assertAdmin(request.auth?.userId);
    const baseUrl = deps.publicUrl ?? `${request.protocol}://${request.host}`;
    return reply.status(201).send(await registration.createInvite(actor, baseUrl));
  });
}
