/** The server keys module as others see it: named values every process of the installation shares. */
export type { ServerKeysRepository } from "./server-keys.repository.ts";
