/** Writes one admin action to the audit log, naming who did it and whom it concerned by their email at the time. */
import { randomUUID } from "node:crypto";
import type { Actor, Auditor } from "../../access/audit.ts";
import type { Clock } from "../../clock.ts";
import type { UsersRepository } from "../accounts/index.ts";
import type { AdminRepository } from "./admin.repository.ts";

export type { Actor, Auditor };

export function createAuditor(deps: { clock: Clock; users: Pick<UsersRepository, "standing">; admin: Pick<AdminRepository, "audit"> }) {
  const audit: Auditor = async (actor, action, target, detail = "") => {
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
  return audit;
}
