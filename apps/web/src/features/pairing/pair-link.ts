import { PAIR_ROUTE } from "@daysync/shared";
import { secretOfFragment } from "../../lib/sealing/pairing-handover.ts";

/**
 * The pairing code in a scanned QR code, with the key handover's secret from its fragment, or null. Only a link to
 * this server's /pair/ page counts: a discussion invite or any other link never leads to a sign-in.
 */
export function pairCodeFromScan(text: string, origins: readonly string[]): { code: string; secret: string | null } | null {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return null;
  }
  if (!origins.includes(url.origin) || !url.pathname.startsWith(`${PAIR_ROUTE}/`)) return null;
  const code = decodeURIComponent(url.pathname.slice(PAIR_ROUTE.length + 1));
  return /^[A-Za-z0-9_-]{8,128}$/.test(code) ? { code, secret: secretOfFragment(url.hash) } : null;
}
