/** The devices calls, the list's query and its key. */
import { DEVICES_API, responseSchemas } from "@daysync/shared";
import { type QueryClient, queryOptions } from "@tanstack/react-query";
import { api, apiFetch } from "../../../lib/api-client.ts";

export const devicesKey = ["devices"] as const;

export const devicesQueryOptions = queryOptions({
  queryKey: devicesKey,
  queryFn: async ({ signal }) => (await api.get(DEVICES_API.list, responseSchemas.devices, signal)).devices,
  staleTime: 0,
  refetchOnWindowFocus: true,
});

/** A device was signed in, out or renamed (here or elsewhere): the list is the server's to say. */
export function reloadDevices(queryClient: QueryClient): void {
  void queryClient.invalidateQueries({ queryKey: devicesKey });
}

export const signOutDevice = (id: string) => apiFetch(DEVICES_API.one(id), { method: "DELETE" });

export const renameDevice = (id: string, name: string) =>
  apiFetch(DEVICES_API.one(id), { method: "PATCH", body: { name }, answer: responseSchemas.device });

export const signOutOtherDevices = () => api.post(DEVICES_API.signOutOthers, {}, responseSchemas.signedOutOthers);
