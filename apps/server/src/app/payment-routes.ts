/** Payments through Stripe (issue 30): on only when the operator sets every `STRIPE_*` setting. */
import type { Clock } from "../clock.ts";
import type { Config } from "../config/config.ts";
import type { UnitOfWork } from "../feed/unit-of-work.ts";
import type { ApiServer } from "../http/answers.ts";
import type { DiscussionsService } from "../modules/discussions/discussions.service.ts";
import { paymentsConfigRoute, paymentsRoutes } from "../modules/payments/payments.routes.ts";
import { createPaymentsService } from "../modules/payments/payments.service.ts";
import { createStripeGateway } from "../modules/payments/stripe.adapter.ts";
import { givenPublicUrl } from "./public-url.ts";
import type { Repositories } from "./repositories.ts";

/** Mounts what the app reads of payments, and with Stripe the payment routes: their service (undefined without). */
export function registerPaymentRoutes(
  app: ApiServer,
  deps: {
    config: Pick<Config, "stripe" | "donationUrl" | "identity">;
    clock: Clock;
    unitOfWork: UnitOfWork;
    repositories: Pick<Repositories, "payments" | "plans" | "users">;
    discussions: DiscussionsService;
  },
) {
  const { config, repositories } = deps;
  paymentsConfigRoute(app, { payments: config.stripe !== undefined, donation_url: config.donationUrl ?? null });
  const stripe = config.stripe ? createStripeGateway(config.stripe) : undefined;
  const payments =
    config.stripe && stripe
      ? createPaymentsService({
          clock: deps.clock,
          unitOfWork: deps.unitOfWork,
          stripe,
          config: config.stripe,
          payments: repositories.payments,
          plans: repositories.plans,
          users: repositories.users,
          discussions: deps.discussions,
          log: app.log,
        })
      : undefined;
  if (payments && stripe) paymentsRoutes(app, { payments, stripe, publicUrl: givenPublicUrl(config) });
  return payments;
}
