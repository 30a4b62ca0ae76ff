/**
 * The extension as a new device (issue 46), with the web app's pairing and sealing modules: it asks with a key of its
 * own and a typed code's share, shows the QR code and the code, waits on the pairing channel, and on approval
 * exchanges the token for its session (kept by the extension, not in a cookie) and takes the key handover.
 */
import { openPairingChannel } from "@daysync/live-client";
import {
  APPROVAL_TEXT,
  KEY_REQUEST_MAX_FAILURES,
  PAIRING_API,
  pairLink,
  responseSchemas,
  type TypedPairingExchange,
} from "@daysync/shared";
import QRCode from "qrcode";
import { api } from "../../../web/src/lib/api-client.ts";
import { makePairingSecret, newAskingKey, pairingFragment, takeHandover } from "../../../web/src/lib/sealing/pairing-handover.ts";
import { acceptTypedHandover, typedRequester } from "../../../web/src/lib/sealing/typed-pairing.ts";
import { type Connection, connectApi, connectApiAs, saveConnection, socketUrl } from "../lib/connection.ts";
import { EXTENSION_TEXT } from "../lib/text.ts";

export interface ShownCode {
  /** The QR code as an image (data: URL) of the pairing link, its secret in the fragment. */
  qr: string;
  shortCode: string;
  expiresIn: number;
}

export type PairingEvent =
  | { type: "showing"; code: ShownCode }
  | { type: "notice"; text: string }
  | { type: "signing-in" }
  | { type: "paired"; connection: Connection; warning?: string }
  | { type: "failed"; text: string };

/** Asks `server` to pair this extension; events until paired or failed. Returns a function that stops waiting. */
export async function startPairing(server: string, onEvent: (event: PairingEvent) => void): Promise<() => void> {
  connectApi(server);
  const secret = makePairingSecret();
  const asking = await newAskingKey(secret);
  const typed = await typedRequester(asking);
  const request = await typed.ask();
  const link = pairLink(server, request.code) + pairingFragment(secret);
  const qr = await QRCode.toDataURL(link, { errorCorrectionLevel: "M", margin: 2, width: 264 });
  onEvent({ type: "showing", code: { qr, shortCode: request.short_code, expiresIn: request.expires_in } });

  const onExchange = async (exchange: TypedPairingExchange) => {
    const step = await typed.update(exchange);
    if (step.step === "show" && step.wrongCodes > 0)
      onEvent({ type: "notice", text: APPROVAL_TEXT.wrongCodeTyped(KEY_REQUEST_MAX_FAILURES - step.wrongCodes) });
    if (step.step === "confirmed") onEvent({ type: "notice", text: APPROVAL_TEXT.waitingForHandover });
    if (step.step === "refused") return APPROVAL_TEXT.refused;
    if (step.step === "ended") return APPROVAL_TEXT.endedWrongCodes;
    return undefined;
  };

  return openPairingChannel({
    openSocket: () => new WebSocket(socketUrl(server, PAIRING_API.live)),
    hello: { type: "wait", request_id: request.request_id, secret: request.secret },
    onExchange,
    onOutcome: (outcome) => {
      if (outcome.type === "approved") {
        onEvent({ type: "signing-in" });
        const exchange = outcome.exchange?.handover_confirmation ? outcome.exchange : undefined;
        signIn(server, { request_id: request.request_id, secret: request.secret, token: outcome.token }, async (userId) => {
          if (exchange) return (await acceptTypedHandover(typed, userId, exchange, () => {})) || EXTENSION_TEXT.handoverNotVerified;
          const handed = await takeHandover(userId, { asking, secret }, request.request_id);
          return handed.ok || handed.reason !== "not_verified" || EXTENSION_TEXT.handoverNotVerified;
        }).then(onEvent, () => onEvent({ type: "failed", text: EXTENSION_TEXT.pairFailed }));
      } else if (outcome.type === "ended") onEvent({ type: "failed", text: outcome.text });
      else if (outcome.type === "expired") onEvent({ type: "failed", text: EXTENSION_TEXT.codeExpired });
      else onEvent({ type: "failed", text: EXTENSION_TEXT.pairFailed });
    },
  });
}

/**
 * Exchanges the approval's token for the extension's session, keeps it, and takes the key handover (`takeKeys`: true,
 * or the sentence saying it did not check out, in which case the extension is paired but cannot read yet).
 */
async function signIn(
  server: string,
  exchange: { request_id: string; secret: string; token: string },
  takeKeys: (userId: string) => Promise<true | string>,
): Promise<PairingEvent> {
  const answer = await api.post(PAIRING_API.exchange, exchange, responseSchemas.pairingExchange);
  if (!answer.session_token) throw new Error("The server kept the session in a cookie");
  const connection: Connection = { server, token: answer.session_token, user_id: answer.user.id };
  connectApiAs(connection);
  await saveConnection(connection);
  const taken = await takeKeys(connection.user_id).catch(() => true as const);
  return taken === true ? { type: "paired", connection } : { type: "paired", connection, warning: taken };
}
