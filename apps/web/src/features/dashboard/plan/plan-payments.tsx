import { NO_PAYMENTS_NOTE, PAYMENTS_API, paymentRedirectSchema } from "@daysync/shared";
import { useMutation } from "@tanstack/react-query";
import { api } from "../../../lib/api-client.ts";
import { describeError } from "../../../lib/api-errors.ts";
import { goToPayment } from "../../../lib/payments.ts";
import { CHECKOUT_RETURN_TEXT, type CheckoutReturn } from "../../../lib/use-checkout-return.ts";

/** A button that asks the server for a Stripe page (Checkout or the billing portal) and goes there. */
function StripeButton({ path, label, primary }: { path: string; label: string; primary?: boolean }) {
  const go = useMutation({
    mutationFn: () => api.post(path, undefined, paymentRedirectSchema),
    onSuccess: ({ url }) => goToPayment(url),
  });
  return (
    <div className="plan-payment">
      <button
        type="button"
        className={primary ? "btn btn-primary" : "btn btn-secondary"}
        disabled={go.isPending}
        onClick={() => go.mutate()}
      >
        {label}
      </button>
      {go.error ? (
        <p className="field-error" role="alert">
          {describeError(go.error)}
        </p>
      ) : null}
    </div>
  );
}

export function UpgradeButton() {
  return <StripeButton path={PAYMENTS_API.premiumCheckout} label="Upgrade to Premium" primary />;
}

export function ManageSubscriptionButton() {
  return <StripeButton path={PAYMENTS_API.portal} label="Manage subscription" />;
}

export function NoPaymentsNote() {
  return <p className="plan-note">{NO_PAYMENTS_NOTE}</p>;
}

export function CheckoutReturnNotice({ result }: { result: CheckoutReturn | null }) {
  if (!result) return null;
  return (
    <p className="plan-card plan-checkout-return" role="status">
      {CHECKOUT_RETURN_TEXT[result]}
    </p>
  );
}
