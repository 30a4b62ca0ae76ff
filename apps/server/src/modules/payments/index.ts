/** The payments module as others see it. */
export { erasePaymentsOfAccount } from "./payments.repository.ts";
