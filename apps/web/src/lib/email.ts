import { EMAIL_API, emailResponseSchemas } from "@daysync/shared";
import { useQuery } from "@tanstack/react-query";
import { api } from "./api-client.ts";

/**
 * Whether this server sends mail (its operator set SMTP): only then do /login's "Forgot password?" and "Email me a
 * sign-in link" and the dashboard's verification banner show. False until known, and when it cannot be asked.
 */
export function useEmailEnabled(): boolean {
  const query = useQuery({
    queryKey: ["auth", "email"],
    queryFn: async () => (await api.get(EMAIL_API.config, emailResponseSchemas.config)).enabled,
    staleTime: 5 * 60_000,
  });
  return query.data ?? false;
}
