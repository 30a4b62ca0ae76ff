/** The Settings page's requests: name, email, password, the fresh check, and deleting the account. */
import {
  type ChangeEmailInput,
  type ChangePasswordRequest,
  type DeleteAccountInput,
  SETTINGS_API,
  settingsResponseSchemas,
} from "@daysync/shared";
import { type QueryClient, queryOptions } from "@tanstack/react-query";
import { api, apiFetch } from "../../../lib/api-client.ts";

export const confirmationKey = ["settings", "confirmation"] as const;

/** Whether the account has a password, and until when this device counts as freshly checked. */
export const confirmationQueryOptions = queryOptions({
  queryKey: confirmationKey,
  queryFn: ({ signal }) => api.get(SETTINGS_API.confirmation, settingsResponseSchemas.confirmation, signal),
});

export const reloadConfirmation = (queryClient: QueryClient) => void queryClient.invalidateQueries({ queryKey: confirmationKey });

export const changeName = (name: string) => api.put(SETTINGS_API.name, { name }, settingsResponseSchemas.user);

export const changeEmail = (input: ChangeEmailInput) => api.put(SETTINGS_API.email, input, settingsResponseSchemas.user);

export const changePassword = (input: ChangePasswordRequest) =>
  api.put(SETTINGS_API.password, input, settingsResponseSchemas.passwordChanged);

/** After this device's fresh check at a linked provider: where the browser goes to sign in there. */
export const startConfirm = (providerId: string) =>
  api.post(SETTINGS_API.confirmWith(providerId), {}, settingsResponseSchemas.confirmStart);

export const deleteAccount = (input: DeleteAccountInput) => apiFetch(SETTINGS_API.account, { method: "DELETE", body: input });
