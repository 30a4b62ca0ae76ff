/** The devices module as others see it: a user's sessions as devices, and the one way one ends. */
export type { DevicesRepository } from "./devices.repository.ts";
export type { DevicesService } from "./devices.service.ts";
