/** The account's sign-in methods: the providers this server offers, those linked, linking and unlinking. */
import { IDENTITY_API, responseSchemas } from "@daysync/shared";
import { type QueryClient, queryOptions } from "@tanstack/react-query";
import { api, apiFetch } from "../../../lib/api-client.ts";

export const signInMethodsKey = ["sign-in-methods"] as const;

export const offeredProvidersQueryOptions = queryOptions({
  queryKey: [...signInMethodsKey, "offered"],
  queryFn: async ({ signal }) => (await api.get(IDENTITY_API.providers, responseSchemas.providers, signal)).providers,
  staleTime: 5 * 60_000,
});

export const linkedIdentitiesQueryOptions = queryOptions({
  queryKey: [...signInMethodsKey, "linked"],
  queryFn: ({ signal }) => api.get(IDENTITY_API.identities, responseSchemas.identities, signal),
});

export const reloadSignInMethods = (queryClient: QueryClient) => void queryClient.invalidateQueries({ queryKey: signInMethodsKey });

/** After the fresh check (the password, or none after a provider check), where the browser goes to sign in at the provider. */
export const startLink = (providerId: string, password?: string) =>
  api.post(IDENTITY_API.link(providerId), password ? { password } : {}, responseSchemas.linkStart);

export const unlinkIdentity = (id: string) => apiFetch(IDENTITY_API.identity(id), { method: "DELETE" });
