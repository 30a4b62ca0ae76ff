import { KEYS_API, keysStateSchema } from "@daysync/shared";
import { api } from "./api-client.ts";

/** The account's key state as the server sees it; the locked notice, Start over and the logout warning read it. */
export const keysStateQuery = { queryKey: ["keys-state"], queryFn: () => api.get(KEYS_API.keys, keysStateSchema) };

/** Settings' recovery code section: a link to Settings with this hash opens it scrolled into view. */
export const RECOVERY_SECTION_HASH = "#recovery-code";
