/** Who may read and write a space. */
export type { AccessRepository, Membership } from "./access.repository.ts";
