/**
 * Upload-Metadata (tus: comma-separated `key base64value` pairs), read strictly. tus decodes each value as UTF-8
 * with U+FFFD in place of bytes that are not UTF-8 (half a character among them), which would be stored as such;
 * here such a value is refused with a 400 naming its key.
 */
import { badRequest } from "../../http/errors.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The values of the header tus has already checked the form of; a key alone is null, as tus reads it. */
export function readUploadMetadata(header: string | null): Record<string, string | null> {
  const values: Record<string, string | null> = {};
  if (!header?.trim()) return values;
  for (const pair of header.split(",")) {
    const [key = "", value] = pair.split(" ");
    try {
      values[key] = value === undefined ? null : utf8.decode(Buffer.from(value, "base64"));
    } catch {
      throw badRequest(`${key} must be UTF-8 text.`, key);
    }
  }
  return values;
}

/**
 * Whether the header names an `epoch` (a sealed upload of a day) or a `generation` (one of an encrypted discussion),
 * read before its values are checked: either declares its sealed length.
 */
export function declaresSealed(header: string | null): boolean {
  return (header ?? "").split(",").some((pair) => ["epoch", "generation"].includes(pair.trim().split(" ")[0] ?? ""));
}
