import { PUSH_API } from "@daysync/shared";
import { api, apiFetch } from "../../lib/api-client.ts";

export const getPushPublicKey = async () => (await api.get<{ public_key: string }>(PUSH_API.publicKey)).public_key;
export const saveSubscription = (subscription: PushSubscriptionJSON) => api.post<{ ok: true }>(PUSH_API.subscriptions, subscription);
export const deleteSubscription = (endpoint: string) =>
  apiFetch<undefined>(PUSH_API.subscriptions, { method: "DELETE", body: { endpoint } });
