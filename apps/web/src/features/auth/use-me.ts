import { useQuery } from "@tanstack/react-query";
import { meQueryOptions } from "../../lib/session.ts";

/**
 * The session: GET /api/me; data is the user, or null for a visitor.
 * Always asks (networkMode "always"): the query library only learns of being offline from events, so after an
 * offline start it would otherwise pause a retry, or miss the `online` event that should resume it.
 */
export function useMe() {
  return useQuery({ ...meQueryOptions, networkMode: "always" });
}
