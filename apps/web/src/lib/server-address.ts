/**
 * The address links are built from (issue 43): PUBLIC_URL, else the server's HTTPS address on the home network, as
 * `GET /api/address` says, else this page's own origin unless it is one a phone cannot reach (localhost). Asked once
 * per page load.
 */
import { HOME_NETWORK_API, isLocalOnlyOrigin, type ServerAddress, serverAddressSchema } from "@daysync/shared";
import { useEffect, useState } from "react";

export interface LinkOrigin {
  /** The origin to put in links, QR codes and addresses shown to another device. */
  origin: string;
  /** False: only this page's own address was known, and another device cannot open it (localhost). */
  reachable: boolean;
  /** The server's page that installs its home network authority, when it has one. */
  trustUrl: string | null;
  /** The SHA-256 of that authority when `origin` has a certificate from it: links carry it for the command line. */
  pin: string | null;
}

/** Shown beside a link or code that could only name localhost: the server knows no other address. */
export const UNREACHABLE_LINK_TEXT =
  "This link names localhost, which only this computer can open. Open Daysync here at its network address, or set PUBLIC_URL on the server, for a link another device can use.";

let pending: Promise<ServerAddress> | undefined;

const UNKNOWN: ServerAddress = { url: null, trust_url: null, ca_sha256: null };

export function loadServerAddress(): Promise<ServerAddress> {
  pending ??= fetch(HOME_NETWORK_API.address, { credentials: "same-origin" })
    .then((res) => (res.ok ? res.json() : undefined))
    .then(
      (body) => serverAddressSchema.safeParse(body).data ?? UNKNOWN,
      () => UNKNOWN,
    );
  return pending;
}

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** Where links should point; the page's own origin is used only when another device can open it. */
export async function loadLinkOrigin(): Promise<LinkOrigin> {
  const address = await loadServerAddress();
  const own = window.location.origin;
  const told = address.url ? originOf(address.url) : null;
  if (told) return { origin: told, reachable: true, trustUrl: address.trust_url, pin: address.ca_sha256 };
  return { origin: own, reachable: !isLocalOnlyOrigin(own), trustUrl: address.trust_url, pin: null };
}

/** The origins a scanned pairing link may have: this page's, and the one the server tells devices to use. */
export async function ownOrigins(): Promise<string[]> {
  const { origin } = await loadLinkOrigin();
  return [...new Set([window.location.origin, origin])];
}

/** `loadLinkOrigin` for a component; undefined while it loads. */
export function useLinkOrigin(): LinkOrigin | undefined {
  const [value, setValue] = useState<LinkOrigin>();
  useEffect(() => {
    let live = true;
    void loadLinkOrigin().then((origin) => live && setValue(origin));
    return () => {
      live = false;
    };
  }, []);
  return value;
}
