import type { User } from "@daysync/shared";
import { presentUser } from "../../presenters/user.presenter.ts";
import type { UsersRepository } from "./users.repository.ts";

/** Loads a user with their current subscription, as the API shows it, or undefined. */
export async function loadUser(users: UsersRepository, userId: string): Promise<User | undefined> {
  const user = await users.findWithPlan(userId);
  return user && presentUser(user, user.plan);
}
