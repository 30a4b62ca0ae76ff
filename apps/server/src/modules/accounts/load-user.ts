import type { User } from "@daysync/shared";
import type { Work } from "../../feed/unit-of-work.ts";
import { presentUser } from "../../presenters/user.presenter.ts";
import type { UsersRepository } from "./users.repository.ts";

/** Loads a user with their current subscription, as the API shows it, or undefined. */
export async function loadUser(users: UsersRepository, userId: string): Promise<User | undefined> {
  const user = await users.findWithPlan(userId);
  return user && presentUser(user, user.plan);
}

/**
 * Records that the user changed (`user.updated`, to each of their devices), as they now are in the work's
 * transaction: the one way every module says so. Undefined (and nothing recorded) for no such user.
 */
export async function recordUserUpdated(work: Work, users: UsersRepository, userId: string): Promise<User | undefined> {
  const user = await loadUser(users.in(work.trx), userId);
  if (user) await work.record([userId], { kind: "user.updated", userId }, user);
  return user;
}
