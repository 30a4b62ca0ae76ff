/** Headers every answer carries, whether Fastify sends it or a handler that writes the raw response (tus). */
export const SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY",
} as const;
