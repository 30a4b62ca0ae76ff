/** Who may read and write a space, and the one writer of spaces and their members. */
export type { AccessRepository, Membership } from "./access.repository.ts";
export { erasePersonalSpaceOfAccount, type SpacesRepository } from "./spaces.repository.ts";
