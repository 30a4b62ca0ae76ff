/**
 * Cross-site requests must not act with a user's cookie: writes and WebSocket upgrades from a page of another
 * origin, or from an opaque one (`Origin: null`: sandboxed frames, cross-site redirects, file: pages), are refused.
 * A request without `Origin` comes from a non-browser client and is allowed, and so is one from a browser extension
 * (`chrome-extension:`, `moz-extension:`): no web page can send that Origin, and such a request never acts with the
 * browser's cookie (auth.ts), only with a token the extension got by pairing (client-kind.ts).
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { errorBody } from "./errors.ts";

const EXTENSION_SCHEMES = new Set(["chrome-extension:", "moz-extension:"]);

export function isForeignOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  try {
    const url = new URL(origin);
    return !EXTENSION_SCHEMES.has(url.protocol) && url.host !== request.headers.host;
  } catch {
    return true;
  }
}

/** A request from a browser extension's page or worker. */
export function isExtensionOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  try {
    return EXTENSION_SCHEMES.has(new URL(origin).protocol);
  } catch {
    return false;
  }
}

/** A hook for routes (and the WebSocket upgrades, where it answers before the upgrade): 403 for a foreign origin. */
export async function refuseForeignOrigin(request: FastifyRequest, reply: FastifyReply) {
  if (isForeignOrigin(request)) return reply.status(403).send(errorBody("forbidden", "Cross-site requests are not allowed."));
}

/** The app-wide hook: every write (not GET, HEAD or OPTIONS) is checked. */
export async function refuseForeignWrites(request: FastifyRequest, reply: FastifyReply) {
  if (request.method === "GET" || request.method === "HEAD" || request.method === "OPTIONS") return;
  return refuseForeignOrigin(request, reply);
}
