/** The pairing endpoints of docs/API.md, as the app calls them. */
import {
  PAIRING_API,
  type PairingExchangeInput,
  type PairingExchangeResponse,
  type PairingRequestCreated,
  type PairingRequestDetails,
} from "@daysync/shared";
import { api } from "../../lib/api-client.ts";

export const createPairingRequest = () => api.post<PairingRequestCreated>(PAIRING_API.requests);

export const getPairingRequest = async (code: string, signal?: AbortSignal) =>
  (await api.get<{ request: PairingRequestDetails }>(PAIRING_API.request(code), signal)).request;

export const approvePairing = (code: string) => api.post<undefined>(PAIRING_API.approve(code));
export const denyPairing = (code: string) => api.post<undefined>(PAIRING_API.deny(code));

export const exchangeLoginToken = (input: PairingExchangeInput) => api.post<PairingExchangeResponse>(PAIRING_API.exchange, input);
