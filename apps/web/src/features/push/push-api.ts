import { PUSH_API, responseSchemas } from "@daysync/shared";
import { api, apiFetch } from "../../lib/api-client.ts";

export const getPushPublicKey = async () => (await api.get(PUSH_API.publicKey, responseSchemas.pushPublicKey)).public_key;
export const saveSubscription = (subscription: PushSubscriptionJSON) => api.post(PUSH_API.subscriptions, subscription, responseSchemas.ok);
export const deleteSubscription = (endpoint: string) => apiFetch(PUSH_API.subscriptions, { method: "DELETE", body: { endpoint } });
