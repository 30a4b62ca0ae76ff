/** The push module as others see it. */
export { erasePushSubscriptionsOfAccount } from "./push-subscriptions.repository.ts";
