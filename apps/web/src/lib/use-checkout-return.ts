import { CHECKOUT_RETURN_PARAM, PAYMENTS_API, type PaymentCheckoutResult, paymentCheckoutResultSchema } from "@daysync/shared";
import { useEffect, useState } from "react";
import { useSearchParams } from "react-router";
import { api } from "./api-client.ts";

export type CheckoutReturn = PaymentCheckoutResult["status"] | "failed";

/** What a purchase came back to, in words; the change itself reaches every device through the live connection. */
export const CHECKOUT_RETURN_TEXT: Record<CheckoutReturn, string> = {
  granted: "Payment received, thank you.",
  pending: "Stripe is still confirming your payment: this page changes by itself as soon as it is done.",
  refused: "This payment could not be applied. Nothing more will be charged; write to us if you were.",
  failed: "Your payment could not be checked just now. If it went through, it applies by itself within minutes.",
};

/**
 * Back from Stripe Checkout (its success URL carries the session's id): asks the server to grant what it bought,
 * the same grant as Stripe's webhook (whichever comes first, it applies once), then drops the id from the address.
 */
export function useCheckoutReturn(): CheckoutReturn | null {
  const [params, setParams] = useSearchParams();
  const sessionId = params.get(CHECKOUT_RETURN_PARAM);
  const [result, setResult] = useState<CheckoutReturn | null>(null);
  useEffect(() => {
    if (!sessionId) return;
    setParams(
      (current) => {
        current.delete(CHECKOUT_RETURN_PARAM);
        return current;
      },
      { replace: true },
    );
    api.post(PAYMENTS_API.confirm(sessionId), undefined, paymentCheckoutResultSchema).then(
      ({ status }) => setResult(status),
      () => setResult("failed"),
    );
  }, [sessionId, setParams]);
  return result;
}
