/** The email module as others see it. */
export { eraseEmailOfAccount } from "./email.repository.ts";
