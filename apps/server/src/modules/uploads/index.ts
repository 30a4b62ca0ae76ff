/** The uploads module as others see it. */
export { eraseUploadsOfAccount } from "./uploads.repository.ts";
export type { UploadsService } from "./uploads.service.ts";
