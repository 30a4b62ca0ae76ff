/** The identities module as others see it. */
export { eraseIdentitiesOfAccount } from "./identities.repository.ts";
