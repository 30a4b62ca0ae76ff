/** The plans module as others see it: the current plan of a user, joined in one place. */
export { createPlansRepository, erasePlansOfAccount, type PlansRepository, usersWithCurrentPlan } from "./plans.repository.ts";
export type { PlansService } from "./plans.service.ts";
