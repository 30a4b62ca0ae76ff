/** The admin module as others see it: the audit, and the gate of its pages. */
export type { Actor, Auditor } from "../../access/audit.ts";
export { forgetAccountInAudit } from "./admin.repository.ts";
export type { AdminService } from "./admin.service.ts";
