import { API, responseSchemas } from "@daysync/shared";
import { useQuery } from "@tanstack/react-query";
import { api } from "../../../lib/api-client.ts";

/** The largest file the user's plan accepts. */
export function useUploadLimit() {
  return useQuery({
    queryKey: ["upload-limit"],
    queryFn: () => api.get(API.uploadLimit, responseSchemas.uploadLimit),
    staleTime: 5 * 60_000,
  });
}
