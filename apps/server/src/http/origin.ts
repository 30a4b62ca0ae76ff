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

/**
 * Where a request comes from, by its Origin header: none (a non-browser client), this server's own pages, a browser
 * extension, or anything else (another site, an opaque or unreadable origin).
 */
export type OriginKind = "none" | "same" | "extension" | "foreign";

/** Each request's kind, read once: the auth hook and the write guard both ask. */
const kinds = new WeakMap<FastifyRequest, OriginKind>();

/** The kind of origin this request comes from; its Origin header is parsed once per request. */
export function originKindOf(request: FastifyRequest): OriginKind {
  let kind = kinds.get(request);
  if (kind === undefined) {
    kind = kindOf(request.headers.origin, request.headers.host);
    kinds.set(request, kind);
  }
  return kind;
}

function kindOf(origin: string | undefined, host: string | undefined): OriginKind {
  if (origin === undefined) return "none";
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return "foreign";
  }
  if (EXTENSION_SCHEMES.has(url.protocol)) return "extension";
  return url.host === host ? "same" : "foreign";
}

/** A hook for routes (and the WebSocket upgrades, where it answers before the upgrade): 403 for a foreign origin. */
export async function refuseForeignOrigin(request: FastifyRequest, reply: FastifyReply) {
  if (originKindOf(request) === "foreign") return reply.status(403).send(errorBody("forbidden", "Cross-site requests are not allowed."));
}

/** The app-wide hook: every write (not GET, HEAD or OPTIONS) is checked. */
export async function refuseForeignWrites(request: FastifyRequest, reply: FastifyReply) {
  if (request.method === "GET" || request.method === "HEAD" || request.method === "OPTIONS") return;
  return refuseForeignOrigin(request, reply);
}
