/**
 * The security headers of every answer. A page may run only this origin's script files and the inline
 * scripts the web build wrote into its HTML (allowed by hash, read from the built pages once at start),
 * may not be framed, and may use the camera (the QR scanner) but no other device. JSON answers carry a
 * policy that allows nothing, so an answer opened as a document runs nothing.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { FastifyInstance } from "fastify";

const INLINE_SCRIPT = /<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi;
const SRC_ATTRIBUTE = /(?:^|\s)src\s*=/i;

/** The CSP source ('sha256-…') of each inline script in a page, in the order they appear. */
function inlineScriptHashes(html: string): string[] {
  return [...html.matchAll(INLINE_SCRIPT)]
    .filter(([, attributes = ""]) => !SRC_ATTRIBUTE.test(attributes))
    .map(([, , body = ""]) => `'sha256-${createHash("sha256").update(body, "utf8").digest("base64")}'`);
}

/** The hashes of every inline script of every page of the web build (none when there is no build). */
function builtPagesScriptHashes(webDist: string): string[] {
  if (!existsSync(webDist)) return [];
  const pages = readdirSync(webDist).filter((file) => file.endsWith(".html"));
  const hashes = pages.flatMap((file) => inlineScriptHashes(readFileSync(path.join(webDist, file), "utf8")));
  return [...new Set(hashes)].sort();
}

/**
 * The policy of every page. Styles may be inline: the prerendered pages inline their stylesheet and
 * React sets style attributes; running someone else's script, what this guards against, is closed by
 * script-src alone. Images may be blob: URLs: a sealed image is opened in the page into a Blob. 'self' in connect-src covers the same-origin ws(s) live connection (since Chrome 71 and
 * Safari 16).
 */
function pagePolicy(scriptHashes: readonly string[]): string {
  return [
    "default-src 'self'",
    ["script-src 'self'", ...scriptHashes].join(" "),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "media-src 'self'",
    "connect-src 'self'",
    "worker-src 'self'",
    "manifest-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** Headers every answer carries, whether Fastify sends it or a handler that writes the raw response (tus). */
export const SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY",
} as const;

const API_POLICY = "default-src 'none'; frame-ancestors 'none'";
const PERMISSIONS_POLICY = "camera=(self), microphone=(), geolocation=(), payment=(), usb=()";
const HSTS = "max-age=31536000; includeSubDomains";

export function registerSecurityHeaders(app: FastifyInstance, options: { webDist: string; cookieSecure: boolean }): void {
  const pageHeaders = {
    "content-security-policy": pagePolicy(builtPagesScriptHashes(options.webDist)),
    "permissions-policy": PERMISSIONS_POLICY,
    "cross-origin-opener-policy": "same-origin",
    // The phone's model, which a frozen User-Agent no longer says, for the name of the session it signs in to (issue 43).
    "accept-ch": "Sec-CH-UA-Model",
  };
  app.addHook("onSend", async (_request, reply) => {
    reply.headers(SECURITY_HEADERS);
    // Browsers heed HSTS only over HTTPS, which is what COOKIE_SECURE says the app is served over.
    if (options.cookieSecure) reply.header("strict-transport-security", HSTS);
    const type = String(reply.getHeader("content-type") ?? "");
    if (type.startsWith("text/html")) {
      // A page the server writes itself (the trust page) brings its own, narrower policy.
      const ownPolicy = reply.getHeader("content-security-policy");
      reply.headers(pageHeaders);
      if (ownPolicy !== undefined) reply.header("content-security-policy", ownPolicy);
    } else if (type.startsWith("application/json")) reply.header("content-security-policy", API_POLICY);
  });
}
