/** Making someone an admin (or not): the command line's `role set`; the person's devices hear of it at once. */
import type { Clock } from "../../clock.ts";
import type { UnitOfWork } from "../../feed/unit-of-work.ts";
import { notFound } from "../../http/errors.ts";
import type { UsersRepository } from "../accounts/index.ts";
import { recordUserUpdated } from "../accounts/index.ts";
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
    await recordUserUpdated(work, users, target.id);
  });
  await deps.audit(actor, "role.set", target, role);
  return target;
}
