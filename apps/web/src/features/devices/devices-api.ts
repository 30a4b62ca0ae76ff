import { DEVICES_API, responseSchemas } from "@daysync/shared";
import { queryOptions } from "@tanstack/react-query";
import { api, apiFetch } from "../../lib/api-client.ts";

/** Same key as the live connection refreshes on device.signed_in / device.signed_out. */
export const DEVICES_QUERY_KEY = ["devices"] as const;

export const devicesQueryOptions = queryOptions({
  queryKey: DEVICES_QUERY_KEY,
  queryFn: async ({ signal }) => (await api.get(DEVICES_API.list, responseSchemas.devices, signal)).devices,
  staleTime: 0,
  refetchOnWindowFocus: true,
});

export const signOutDevice = (id: string) => apiFetch(DEVICES_API.one(id), { method: "DELETE" });

export const renameDevice = (id: string, name: string) =>
  apiFetch(DEVICES_API.one(id), { method: "PATCH", body: { name }, answer: responseSchemas.device });

export const signOutOtherDevices = () => api.post(DEVICES_API.signOutOthers, {}, responseSchemas.signedOutOthers);
