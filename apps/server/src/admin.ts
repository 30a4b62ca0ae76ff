/** Operator commands. Usage: npm run admin -- plan set EMAIL premium|free */
import { describeRetention } from "@daysync/shared";
import { createAdapters } from "./adapters/adapters.ts";
import { systemClock } from "./clock.ts";
import { loadConfig } from "./config/config.ts";
import { openDatabase } from "./db/database.ts";
import { AppError } from "./http/errors.ts";
import { createPlansService, type PlanName } from "./modules/plans/plans.service.ts";

const USAGE = "Usage: npm run admin -- plan set EMAIL premium|free";

export async function runAdmin(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; output: string }> {
  const [area, verb, email, plan] = args;
  if (area !== "plan" || verb !== "set" || !email || (plan !== "premium" && plan !== "free")) return { code: 2, output: USAGE };
  const config = loadConfig(env);
  const db = await openDatabase(config);
  // The same bus as the servers', so a device with the app open sees its new plan at once.
  const adapters = await createAdapters(config);
  try {
    const plans = createPlansService({ db, clock: systemClock, bus: adapters.bus });
    const user = await plans.setPlan(email, plan as PlanName);
    return {
      code: 0,
      output: `${user.email}: ${user.title_subscription}, retention ${describeRetention(user.max_message_duration)}, until ${user.date_expiration_subscription}`,
    };
  } catch (error) {
    if (error instanceof AppError) return { code: 1, output: error.message };
    throw error;
  } finally {
    await adapters.close();
    await db.destroy();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { code, output } = await runAdmin(process.argv.slice(2));
  (code === 0 ? console.log : console.error)(output);
  process.exit(code);
}
