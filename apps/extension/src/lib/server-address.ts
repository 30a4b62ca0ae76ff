/** The server's address as a person types it, read into the origin the extension talks to and asks permission for. */
import { z } from "zod";
import { EXTENSION_TEXT } from "./text.ts";

const WITH_SCHEME = /^[a-z][a-z\d+.-]*:\/\//i;

export const serverAddressSchema = z
  .string()
  .trim()
  .min(1, EXTENSION_TEXT.serverEmpty)
  .transform((typed) => (WITH_SCHEME.test(typed) ? typed : `https://${typed}`))
  .pipe(z.url({ protocol: /^https?$/, hostname: z.regexes.hostname, error: EXTENSION_TEXT.serverInvalid }))
  .transform((url) => new URL(url).origin);

/**
 * The host permission the extension asks for, for this server only: its scheme and host (a match pattern names no
 * port in Firefox, so none here either).
 */
export const hostPermissionOf = (origin: string): string => {
  const { protocol, hostname } = new URL(origin);
  return `${protocol}//${hostname}/*`;
};
