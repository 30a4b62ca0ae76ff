/** The pairing endpoints of docs/API.md, as the app calls them. */
import { PAIRING_API, type PairingExchangeInput, responseSchemas } from "@daysync/shared";
import { api } from "../../lib/api-client.ts";

export const createPairingRequest = () => api.post(PAIRING_API.requests, undefined, responseSchemas.pairingRequest);

export const getPairingRequest = async (code: string, signal?: AbortSignal) =>
  (await api.get(PAIRING_API.request(code), responseSchemas.pairingDetails, signal)).request;

export const approvePairing = (code: string) => api.post(PAIRING_API.approve(code));
export const denyPairing = (code: string) => api.post(PAIRING_API.deny(code));

export const exchangeLoginToken = (input: PairingExchangeInput) => api.post(PAIRING_API.exchange, input, responseSchemas.pairingExchange);
