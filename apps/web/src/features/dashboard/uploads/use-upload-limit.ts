import { API } from "@daysync/shared";
import { useQuery } from "@tanstack/react-query";
import { api } from "../../../lib/api-client.ts";

/** The largest file the user's plan accepts. */
export function useUploadLimit() {
  return useQuery({
    queryKey: ["upload-limit"],
    queryFn: () => api.get<{ max_file_size: number; label: string }>(API.uploadLimit),
    staleTime: 5 * 60_000,
  });
}
