/** The keys module as others see it: the opaque key rows, and what goes with a session. */
export type { KeyHandover } from "./key-handover.ts";
export type { KeyRequestsRepository } from "./key-requests.repository.ts";
export { deleteWrapsOfSession, eraseKeysOfAccount, holdsCurrentKey, type KeyStateRows, type KeysRepository } from "./keys.repository.ts";
export { keyIdOf } from "./keys.service.ts";
