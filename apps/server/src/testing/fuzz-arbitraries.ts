/** What the fuzz tests generate for any route: odd strings, bodies and content types (fast-check arbitraries). */
import fc from "fast-check";

/** Strings a client might put anywhere: ids that exist (`known`), odd Unicode, huge ones. */
export function anyText(known: string[]) {
  return fc.oneof(
    fc.constantFrom(...known, "", " ", "null", "..", "../../etc/passwd", "%00", "\u0000", "a\u0000b", "0", "-1", "1e309", "9".repeat(40)),
    fc.uuid(),
    fc.string({ unit: "grapheme", maxLength: 80 }),
    fc.string({ unit: "binary", maxLength: 80 }),
    fc.nat({ max: 300_000 }).map((n) => "ä".repeat(n)),
  );
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** Makes a string sendable in a URL path or query (lone surrogates cannot be percent-encoded). */
export const encoded = (text: string) => encodeURIComponent(text.replace(LONE_SURROGATE, "\uFFFD"));
/** Header values must be bytes: anything past Latin-1, and CR, LF and NUL, are replaced. */
export const headerSafe = (text: string) => text.replace(/[^\x20-\x7e\x80-\xff\t]/g, "?").slice(0, 8000);

/** Bodies: any JSON value, objects shaped like our contracts with wrong values, raw text, nothing. */
export function anyBody(known: string[]) {
  const value = fc.oneof(fc.jsonValue(), anyText(known));
  const shaped = fc.record(
    {
      id: value,
      content: value,
      date: fc.oneof(value, fc.constantFrom("11/24/2026", "2/30/2026", "13/1/2026")),
      time: fc.oneof(value, fc.constantFrom("1:05 PM", "25:00", "12:00 am")),
      email: value,
      password: value,
      confirm_password: value,
      name: value,
      max_message_duration: value,
      endpoint: value,
      keys: fc.oneof(value, fc.record({ p256dh: value, auth: value })),
      request_id: value,
      secret: value,
      token: value,
      title: value,
      display_name: value,
      days: fc.oneof(value, fc.constantFrom(7, 30, 0, -7)),
    },
    { requiredKeys: [] },
  );
  return fc.oneof(
    fc.constant(undefined),
    fc.jsonValue().map((v) => JSON.stringify(v)),
    shaped.map((v) => JSON.stringify(v)),
    fc.string({ unit: "binary", maxLength: 200 }),
    fc.constantFrom("{", '{"a":', "\u0000", "[".repeat(5000), `{"content":"${"x".repeat(1_100_000)}"}`),
  );
}

export const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-16",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/offset+octet-stream",
  "application/octet-stream",
  "",
  "garbage/\u00ff",
];
