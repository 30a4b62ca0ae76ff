/**
 * /api/auth/email, forgot-password, sign-in-link, verify-email (issue 26). Without SMTP every route but the public
 * flag answers 404 `email_not_configured`. A request for a link answers 202 `{ requested: true }` at once, whether or
 * not an account has the address; the lookup and the mail come after the answer.
 */
import {
  EMAIL_API,
  EMAIL_NOT_CONFIGURED_MESSAGE,
  emailLinkRequestSchema,
  emailResponseSchemas,
  emailTokenRequestSchema,
  responseSchemas,
  SIGN_IN_LINK_INVALID_MESSAGE,
  VERIFY_LINK_INVALID_MESSAGE,
} from "@daysync/shared";
import type { RateLimit } from "../../config/config.ts";
import { type ApiServer, answers } from "../../http/answers.ts";
import { deviceOf, requireAuth, setSessionCookie } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import { rateLimitPer } from "../../http/rate-limit.ts";
import { parse } from "../../http/validate.ts";
import type { AccountsService } from "../accounts/index.ts";
import type { DevicesService } from "../devices/index.ts";
import type { EmailLinksService } from "./email-links.service.ts";
import type { EmailVerificationService } from "./email-verification.service.ts";

const signInTokenSchema = emailTokenRequestSchema(SIGN_IN_LINK_INVALID_MESSAGE);
const verifyTokenSchema = emailTokenRequestSchema(VERIFY_LINK_INVALID_MESSAGE);

export function emailRoutes(
  app: ApiServer,
  deps: {
    /** Undefined: this server sends no mail. */
    links: EmailLinksService | undefined;
    verification: EmailVerificationService;
    accounts: Pick<AccountsService, "signIn">;
    devices: Pick<DevicesService, "announceSignIn">;
    cookieSecure: boolean;
    /** Mails asked for per client address. */
    addressRateLimit: RateLimit;
    /** Uses of a link per client address (the sign-in limit). */
    useRateLimit: RateLimit;
  },
) {
  const { links, verification } = deps;
  const notConfigured = () => new AppError(404, "email_not_configured", EMAIL_NOT_CONFIGURED_MESSAGE);
  const mailOn = () => {
    if (!links) throw notConfigured();
    return links;
  };
  const asked = { config: rateLimitPer("address", deps.addressRateLimit, "emails"), schema: answers(emailResponseSchemas.requested) };

  app.get(EMAIL_API.config, { schema: answers(emailResponseSchemas.config) }, async () => ({ enabled: links !== undefined }));

  app.post(EMAIL_API.forgotPassword, asked, async (request, reply) => {
    const service = mailOn();
    service.requestPasswordReset(parse(emailLinkRequestSchema, request.body).email);
    return reply.status(202).send({ requested: true });
  });

  app.post(EMAIL_API.signInLink, asked, async (request, reply) => {
    const service = mailOn();
    service.requestSignInLink(parse(emailLinkRequestSchema, request.body).email);
    return reply.status(202).send({ requested: true });
  });

  app.post(EMAIL_API.resendVerification, asked, async (request, reply) => {
    const auth = requireAuth(request);
    mailOn();
    await verification.resend(auth.userId);
    return reply.status(202).send({ requested: true });
  });

  app.post(
    EMAIL_API.useSignInLink,
    { config: rateLimitPer("address", deps.useRateLimit), schema: answers(responseSchemas.user) },
    async (request, reply) => {
      const service = mailOn();
      const userId = await service.useSignInLink(parse(signInTokenSchema, request.body).token);
      const { user, session } = await deps.accounts.signIn(userId, deviceOf(request));
      await deps.devices.announceSignIn(user.id, session.id);
      setSessionCookie(reply, session.token, deps.cookieSecure);
      return { user };
    },
  );

  app.post(
    EMAIL_API.verify,
    { config: rateLimitPer("address", deps.useRateLimit), schema: answers(emailResponseSchemas.verified) },
    async (request) => {
      mailOn();
      const asker = request.auth ? { userId: request.auth.userId, sessionId: request.auth.sessionId } : undefined;
      return verification.verify(parse(verifyTokenSchema, request.body).token, asker);
    },
  );
}
