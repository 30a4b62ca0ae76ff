import {
  checkoutSessionIdSchema,
  extensionCheckoutSchema,
  PAYMENTS_API,
  type PaymentsConfig,
  paymentCheckoutResultSchema,
  paymentRedirectSchema,
  paymentsConfigSchema,
} from "@daysync/shared";
import type { FastifyRequest } from "fastify";
import { z } from "zod";
import { type ApiServer, answers } from "../../http/answers.ts";
import { requireAuth } from "../../http/auth.ts";
import { AppError, badRequest } from "../../http/errors.ts";
import { parse } from "../../http/validate.ts";
import type { PaymentsService } from "./payments.service.ts";
import { BadSignature, type StripeGateway } from "./stripe.adapter.ts";

const confirmParams = z.object({ id: checkoutSessionIdSchema });

/** Whether this server takes payments: public, answered whether they are on or off. */
export function paymentsConfigRoute(app: ApiServer, config: PaymentsConfig) {
  app.get(PAYMENTS_API.config, { schema: answers(paymentsConfigSchema) }, async () => config);
}

/** Mounted only when payments are on: with them off, every payment route is a 404. */
export function paymentsRoutes(
  app: ApiServer,
  deps: {
    payments: PaymentsService;
    stripe: StripeGateway;
    /** PUBLIC_URL when the operator set it; else undefined, and the address the browser used. */
    publicUrl: string | undefined;
  },
) {
  const { payments } = deps;
  /** Where Stripe sends the person back to: this app's public address. */
  const appUrlOf = (request: FastifyRequest) => deps.publicUrl ?? `${request.protocol}://${request.host}`;

  app.post(PAYMENTS_API.premiumCheckout, { schema: answers(paymentRedirectSchema) }, async (request) => {
    const auth = requireAuth(request);
    return payments.checkoutPremium(auth.userId, appUrlOf(request));
  });

  app.post(PAYMENTS_API.extensionCheckout, { schema: answers(paymentRedirectSchema) }, async (request) => {
    const auth = requireAuth(request);
    const { discussion_id, days } = parse(extensionCheckoutSchema, request.body);
    return payments.checkoutExtension(auth.userId, discussion_id, days, appUrlOf(request));
  });

  app.post(PAYMENTS_API.portal, { schema: answers(paymentRedirectSchema) }, async (request) => {
    const auth = requireAuth(request);
    return payments.portal(auth.userId, appUrlOf(request));
  });

  app.post("/api/payments/checkout/:id/confirm", { schema: answers(paymentCheckoutResultSchema) }, async (request) => {
    const auth = requireAuth(request);
    const { id } = parse(confirmParams, request.params);
    return payments.confirm(auth.userId, id);
  });

  // Stripe signs the exact bytes it sent: this route alone reads its body raw.
  app.register(async (raw) => {
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: 1024 * 1024 }, (_request, body, done) => done(null, body));
    raw.post(PAYMENTS_API.webhook, { schema: answers(z.object({ received: z.literal(true) })) }, async (request) => {
      const signature = request.headers["stripe-signature"];
      if (typeof signature !== "string" || !signature) throw badRequest("The Stripe-Signature header is missing.");
      if (!Buffer.isBuffer(request.body)) throw badRequest("The body is missing.");
      let event: ReturnType<StripeGateway["event"]>;
      try {
        event = deps.stripe.event(request.body, signature);
      } catch (error) {
        if (error instanceof BadSignature) {
          throw new AppError(400, "bad_signature", "The signature of this webhook is wrong or too old.");
        }
        throw error;
      }
      // A failure here answers 500, and Stripe delivers the event again later.
      await payments.handleEvent(event);
      return { received: true as const };
    });
  });
}
