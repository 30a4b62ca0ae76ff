/**
 * How a client that is not one of the server's own pages says what it is and holds its session (issue 46): the
 * browser extension sends `X-Daysync-Client: browser-extension`, is named "Chrome extension on Linux" in Devices, and
 * keeps its session token itself (the `Authorization` header, or the live socket's subprotocol) rather than in the
 * browser's cookie jar, which it would share with the web app signed in on the same browser.
 */
import { z } from "zod";

export const CLIENT_HEADER = "x-daysync-client";
export const BROWSER_EXTENSION = "browser-extension";

export const clientHeadersSchema = z.object({
  [CLIENT_HEADER]: z.literal(BROWSER_EXTENSION, `${CLIENT_HEADER} may only be "${BROWSER_EXTENSION}".`).optional(),
});
export type ClientKind = NonNullable<z.infer<typeof clientHeadersSchema>[typeof CLIENT_HEADER]>;

/** Appended to the User-Agent a session is named from: the server's one note that the session is the extension. */
export const EXTENSION_AGENT_TOKEN = "DaysyncExtension";

/** The live socket's subprotocols: the first is the one the server answers with, the second carries the token. */
export const LIVE_PROTOCOL = "daysync";
const TOKEN_PROTOCOL_PREFIX = "daysync-session.";
const TOKEN = /^[A-Za-z0-9_-]{20,128}$/;

export const liveProtocolsWithToken = (token: string): string[] => [LIVE_PROTOCOL, `${TOKEN_PROTOCOL_PREFIX}${token}`];

/** The session token a request carries outside the cookie jar: `Authorization: Bearer …`, or the live socket's subprotocol. */
export function sessionTokenOf(headers: {
  authorization?: string | undefined;
  "sec-websocket-protocol"?: string | undefined;
}): string | undefined {
  const bearer = /^Bearer (\S+)$/.exec(headers.authorization?.trim() ?? "")?.[1];
  if (bearer && TOKEN.test(bearer)) return bearer;
  for (const offered of headers["sec-websocket-protocol"]?.split(",") ?? []) {
    const protocol = offered.trim();
    if (!protocol.startsWith(TOKEN_PROTOCOL_PREFIX)) continue;
    const token = protocol.slice(TOKEN_PROTOCOL_PREFIX.length);
    if (TOKEN.test(token)) return token;
  }
  return undefined;
}
