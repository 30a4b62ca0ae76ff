/** The admin page's calls, its queries and their keys. */
import { ADMIN_API, adminResponseSchemas, inviteLinkSchema } from "@daysync/shared";
import { type QueryClient, queryOptions } from "@tanstack/react-query";
import { api } from "../../../lib/api-client.ts";

const adminKey = ["admin"] as const;

export const accountsQueryOptions = (q: string) =>
  queryOptions({
    queryKey: [...adminKey, "accounts", q],
    queryFn: async ({ signal }) =>
      (await api.get(`${ADMIN_API.accounts}?q=${encodeURIComponent(q)}`, adminResponseSchemas.accounts, signal)).accounts,
    placeholderData: (previous) => previous,
  });

export const figuresQueryOptions = queryOptions({
  queryKey: [...adminKey, "figures"],
  queryFn: ({ signal }) => api.get(ADMIN_API.figures, adminResponseSchemas.figures, signal),
  refetchInterval: 60_000,
});

export const auditQueryOptions = queryOptions({
  queryKey: [...adminKey, "audit"],
  queryFn: async ({ signal }) => (await api.get(ADMIN_API.audit, adminResponseSchemas.audit, signal)).entries,
});

/** After an action: the accounts, figures and audit log are the server's to say. */
export function reloadAdmin(queryClient: QueryClient): void {
  void queryClient.invalidateQueries({ queryKey: adminKey });
}

/** `until` null: Premium with no end date. */
export const grantPremium = (id: string, until: string | null) => api.put(ADMIN_API.premium(id), { until }, adminResponseSchemas.account);
export const endPremium = (id: string) => api.delete(ADMIN_API.premium(id), adminResponseSchemas.account);
export const disableAccount = (id: string) => api.put(ADMIN_API.disabled(id), {}, adminResponseSchemas.account);
export const enableAccount = (id: string) => api.delete(ADMIN_API.disabled(id), adminResponseSchemas.account);
export const deleteAccount = (id: string) => api.delete(ADMIN_API.account(id), adminResponseSchemas.deleted);
export const createInvite = () => api.post(ADMIN_API.invites, {}, inviteLinkSchema);
export const passwordResetLink = (id: string) => api.post(ADMIN_API.passwordReset(id), {}, adminResponseSchemas.passwordReset);
