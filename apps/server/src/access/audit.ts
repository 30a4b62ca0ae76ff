/** Who did an admin action, and the auditor that writes it down (`modules/admin/admin-audit.ts` makes it). */

/** Who did an action: an admin's session, or the operator's command line. */
export type Actor = { userId: string } | "command line";

/** The gate of every admin route: the admin acting, or a 404 to anyone else (`modules/admin/admin.service.ts`). */
export interface AdminGate {
  assertAdmin(userId: string | undefined): Promise<{ userId: string }>;
}

/** Writes one admin action to the audit log, naming who did it and whom it concerned by their email at the time. */
export type Auditor = (actor: Actor, action: string, target: { id: string; email: string }, detail?: string) => Promise<void>;
