/** The invites module as others see it: whether someone may register. */
export { REGISTRATION_REFUSALS, type RegistrationService } from "./registration.service.ts";
