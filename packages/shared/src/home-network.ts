/**
 * The address devices are told to use (issue 43): links shown as QR codes, pairing links and invite links are built
 * from it, never from `localhost`, which on a phone is the phone itself.
 */
import { z } from "zod";

export const HOME_NETWORK_API = {
  /** GET, public: the address to put in links (`ServerAddress`). */
  address: "/api/address",
} as const;

/** The page (served by the server, outside the app) that installs the home network's certificate authority. */
export const TRUST_PAGE = "/trust";

/** The 403 `https_required`: plain HTTP on a home network address, while HTTPS is on, serves only the trust page. */
export const HTTPS_REQUIRED_TEXT =
  "This server takes requests from other devices over HTTPS only. Open its https:// address (its trust page, on this address, shows how).";

export const serverAddressSchema = z.object({
  /** PUBLIC_URL, else the server's HTTPS address on the home network; null: the server cannot know one. */
  url: z.string().nullable(),
  /** Where a device installs the authority of the home network's certificate; null when the server made none. */
  trust_url: z.string().nullable(),
  /**
   * The SHA-256 of the local authority's certificate (DER, 64 lowercase hex digits) when `url` is an HTTPS address
   * with a certificate from it; null otherwise. Links put it in their fragment (`AUTHORITY_PIN`) for the command line.
   */
  ca_sha256: z.string().nullable(),
});
export type ServerAddress = z.infer<typeof serverAddressSchema>;

/** The fragment part of a link that pins the server's authority: `#…&c=<sha256>` (the command line's `daysync login LINK`). */
export const AUTHORITY_PIN = "c";
const PIN_PATTERN = /^[0-9a-f]{64}$/;

/** `link` with the pin added to its fragment; the link as it is without a pin. */
export function withAuthorityPin(link: string, pin: string | null): string {
  if (!pin) return link;
  return `${link}${link.includes("#") ? "&" : "#"}${AUTHORITY_PIN}=${pin}`;
}

/** The pin in a link's fragment, or null when it has none; a malformed one is null too. */
export function authorityPinOf(link: string): string | null {
  const hash = link.indexOf("#");
  if (hash < 0) return null;
  const pin = new URLSearchParams(link.slice(hash + 1)).get(AUTHORITY_PIN)?.toLowerCase() ?? null;
  return pin && PIN_PATTERN.test(pin) ? pin : null;
}

const LOCAL_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** Whether an origin names only the machine it is opened on (a phone opening it reaches itself). */
export function isLocalOnlyOrigin(origin: string): boolean {
  try {
    const { hostname } = new URL(origin);
    return LOCAL_NAMES.has(hostname) || hostname.endsWith(".localhost") || /^127\./.test(hostname);
  } catch {
    return true;
  }
}
