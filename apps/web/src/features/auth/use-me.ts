import { useQuery } from "@tanstack/react-query";
import { meQueryOptions } from "../../lib/session.ts";

/** The session: GET /api/me; data is the user, or null for a visitor. */
export function useMe() {
  return useQuery(meQueryOptions);
}
