/** The pairing module as others see it. */
export { endPairingsOfSession, erasePairingsOfAccount } from "./pairing.repository.ts";
