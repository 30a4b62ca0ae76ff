/**
 * `daysync login`'s side of pairing (docs/protocol/encryption.md, "QR pairing handover"): one code's request made
 * with this terminal's key pair and the link's secret, the typed code's steps judged as they come, and once signed
 * in, the keys the approving device handed over kept in keys.json.
 */
import { HANDOVER_TEXT, type TypedPairingExchange } from "@daysync/shared";
import { askingKey, makePairingSecret, type PairingRequester, pairingFragment } from "@daysync/shared/crypto";
import type { ApiClient } from "../api-client.ts";
import type { ConfigStore } from "../config-store.ts";
import { warn } from "../terminal-text.ts";
import { receivePairingKeys, terminalKeyPair } from "./account-keys.ts";
import { acceptTerminalHandover, followTypedStep, terminalRequester } from "./typed-pairing.ts";

export interface TerminalPairing {
  /** The server's request: its code and short code, the id and secret the channel waits with, how long it lasts. */
  request: Awaited<ReturnType<PairingRequester["ask"]>>;
  /** The link's fragment: the secret goes only there (the QR code), never to the server. */
  fragment: string;
  /** One step of the typed code's exchange, said here; the sentence that ends the sign-in if it ended the request. */
  followStep(exchange: TypedPairingExchange): Promise<string | undefined>;
  /**
   * Once signed in: keeps the terminal's pair and the epochs handed over, by the typed code's exchange as approved
   * (`approved`, when it carries a handover) or else by the QR link's handover.
   */
  keepKeys(signedIn: ApiClient, store: ConfigStore, userId: string, approved?: TypedPairingExchange): Promise<void>;
}

/** Asks the server for a pairing code, holding a fresh key pair and link secret for it. */
export async function askToPair(api: ApiClient): Promise<TerminalPairing> {
  const secret = makePairingSecret();
  const asking = await askingKey(terminalKeyPair, secret);
  // The key state is read once signed in, with the session the exchange gives.
  let session = api;
  const requester = await terminalRequester(api, asking, () => session);
  const request = await requester.ask();
  return {
    request,
    fragment: pairingFragment(secret),
    followStep: (exchange) => followTypedStep(requester, exchange),
    async keepKeys(signedIn, store, userId, approved) {
      const { server } = signedIn;
      if (approved?.handover_confirmation) {
        session = signedIn;
        return acceptTerminalHandover(requester, signedIn, store, server, userId, approved);
      }
      const handover = await receivePairingKeys(signedIn, store, server, userId, { asking, secret, requestId: request.request_id });
      if (!handover.ok && handover.reason === "not_verified") warn(HANDOVER_TEXT.handoverNotVerified);
    },
  };
}
