/** The pairing endpoints of docs/API.md, as the app calls them. */
import { PAIRING_API, type PairingApproveInput, type PairingExchangeInput, type PairingKeyInput, responseSchemas } from "@daysync/shared";
import { api } from "../../lib/api-client.ts";

export const createPairingRequest = (key?: PairingKeyInput) => api.post(PAIRING_API.requests, key, responseSchemas.pairingRequest);

export const getPairingRequest = async (code: string, signal?: AbortSignal) =>
  (await api.get(PAIRING_API.request(code), responseSchemas.pairingDetails, signal)).request;

export const approvePairing = (code: string, approval?: PairingApproveInput) => api.post(PAIRING_API.approve(code), approval);
export const denyPairing = (code: string) => api.post(PAIRING_API.deny(code));

export const exchangeLoginToken = (input: PairingExchangeInput) => api.post(PAIRING_API.exchange, input, responseSchemas.pairingExchange);

export const createPairingOffer = () => api.post(PAIRING_API.offers, undefined, responseSchemas.pairingOffer);
export const approveOffer = (offerId: string, approval?: PairingApproveInput) => api.post(PAIRING_API.approveOffer(offerId), approval);
export const denyOffer = (offerId: string) => api.post(PAIRING_API.denyOffer(offerId));
export const joinOffer = (code: string, key?: PairingKeyInput) => api.post(PAIRING_API.join(code), key, responseSchemas.pairingJoined);
