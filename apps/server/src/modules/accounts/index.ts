/** The accounts module as other modules see it: users, sessions, passwords and the fresh check. */
export type { AccountDeleter } from "./account-settings.service.ts";
export type { AccountsService, DeviceInfo } from "./accounts.service.ts";
export type { FreshCheck } from "./fresh-check.ts";
export { loadUser, recordUserUpdated } from "./load-user.ts";
export { NO_PASSWORD } from "./password.ts";
export { createResetLink, type PasswordResetService } from "./password-reset.service.ts";
export { erasePasswordResetsOfAccount, type PasswordResetsRepository } from "./password-resets.repository.ts";
export { eraseSessionsOfAccount, type SessionsRepository } from "./sessions.repository.ts";
export { eraseUserRow, type UsersRepository } from "./users.repository.ts";
