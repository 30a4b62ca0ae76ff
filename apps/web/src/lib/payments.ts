import { PAYMENTS_API, type PaymentsConfig } from "@daysync/shared";
import { useEffect, useState } from "react";

/**
 * Whether this server takes payments, asked once per page load. The public pages use it too, so it is read by hand
 * rather than with the shared zod schema, which would bring zod into their small bundle. Until it is known, and if
 * it cannot be read, the pages show no purchase.
 */
let pending: Promise<PaymentsConfig> | undefined;

const OFF: PaymentsConfig = { payments: false, donation_url: null };

function read(value: unknown): PaymentsConfig {
  if (!value || typeof value !== "object") return OFF;
  const { payments, donation_url } = value as Record<string, unknown>;
  return {
    payments: payments === true,
    donation_url: typeof donation_url === "string" && /^https?:\/\//.test(donation_url) ? donation_url : null,
  };
}

export function loadPaymentsConfig(): Promise<PaymentsConfig> {
  pending ??= fetch(PAYMENTS_API.config, { credentials: "same-origin" })
    .then((res) => (res.ok ? res.json() : undefined))
    .then(read, () => OFF);
  return pending;
}

/** This server's payments settings; undefined while they load. */
export function usePaymentsConfig(): PaymentsConfig | undefined {
  const [config, setConfig] = useState<PaymentsConfig>();
  useEffect(() => {
    let live = true;
    void loadPaymentsConfig().then((value) => live && setConfig(value));
    return () => {
      live = false;
    };
  }, []);
  return config;
}

/** Sends the browser to Stripe (Checkout or the billing portal) at the URL the server answered. */
export function goToPayment(url: string): void {
  window.location.assign(url);
}
