/** Making someone an admin (or not): the command line's `role set`; the person's devices hear of it at once. */
import type { Clock } from "../../clock.ts";
import { liveEvents } from "../../feed/events.ts";
import type { UnitOfWork } from "../../feed/unit-of-work.ts";
import { notFound } from "../../http/errors.ts";
import type { UsersRepository } from "../accounts/index.ts";
import { loadUser } from "../accounts/index.ts";
import type { Actor, Auditor } from "./admin-audit.ts";

export async function setRole(
  deps: { clock: Clock; unitOfWork: UnitOfWork; users: UsersRepository; audit: Auditor },
  actor: Actor,
  email: string,
  role: "admin" | "user",
): Promise<{ id: string; email: string }> {
  const { users } = deps;
  const id = await users.idByEmail(email.trim().toLowerCase());
  const target = id && (await users.standing(id));
  if (!target) throw notFound("user with that email");
  await deps.unitOfWork.forUser(target.id, async (work) => {
    await users.in(work.trx).setRole(target.id, role, deps.clock.now());
    const user = await loadUser(users.in(work.trx), target.id);
    if (user) await work.record([target.id], { kind: "user.updated", userId: target.id }, liveEvents.userUpdated(user));
  });
  await deps.audit(actor, "role.set", target, role);
  return target;
}
