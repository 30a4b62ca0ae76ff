/** Writes one admin action to the audit log, naming who did it and whom it concerned by their email at the time. */
import { randomUUID } from "node:crypto";
import type { Clock } from "../../clock.ts";
import type { UsersRepository } from "../accounts/users.repository.ts";
import type { AdminRepository } from "./admin.repository.ts";

/** Who did an action: an admin's session, or the operator's command line. */
export type Actor = { userId: string } | "command line";

export function createAuditor(deps: { clock: Clock; users: Pick<UsersRepository, "standing">; admin: Pick<AdminRepository, "audit"> }) {
  return async function audit(actor: Actor, action: string, target: { id: string; email: string }, detail = ""): Promise<void> {
    const by = actor === "command line" ? undefined : await deps.users.standing(actor.userId);
    await deps.admin.audit({
      id: randomUUID(),
      at: deps.clock.now(),
      actor_id: by?.id ?? null,
      actor_label: by?.email ?? "command line",
      action,
      target_id: target.id,
      target_label: target.email,
      detail,
    });
  };
}

export type Auditor = ReturnType<typeof createAuditor>;
