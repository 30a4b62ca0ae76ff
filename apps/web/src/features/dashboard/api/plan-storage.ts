/** What the plan allows for files: the account's storage used against its limit, and the largest file it accepts. */
import { API, responseSchemas } from "@daysync/shared";
import { useQuery } from "@tanstack/react-query";
import { api } from "../../../lib/api-client.ts";

/** Fresh on each visit of the plan page: another device may have uploaded or deleted meanwhile. */
export function useStorage() {
  return useQuery({ queryKey: ["storage"], queryFn: () => api.get(API.storage, responseSchemas.storage), staleTime: 0 });
}

export function useUploadLimit() {
  return useQuery({
    queryKey: ["upload-limit"],
    queryFn: () => api.get(API.uploadLimit, responseSchemas.uploadLimit),
    staleTime: 5 * 60_000,
  });
}
