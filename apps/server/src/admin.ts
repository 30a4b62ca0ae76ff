/**
 * Operator commands: set a user's plan or role; print a password reset link or an invite link; copy a SQLite
 * installation into PostgreSQL.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { describeRetention, hasNoEndDate, INVITE_TTL_MS, NO_END_DATE_MS } from "@daysync/shared";
import { createAdapters } from "./adapters/adapters.ts";
import { createRepositories } from "./app/repositories.ts";
import { systemClock } from "./clock.ts";
import { type Config, loadConfig } from "./config/config.ts";
import { copySqliteToPostgres, TargetNotEmpty } from "./db/copy-database.ts";
import { openDatabase } from "./db/database.ts";
import { createUnitOfWork, type Work } from "./feed/unit-of-work.ts";
import { AppError, notFound } from "./http/errors.ts";
import { recordUserUpdated } from "./modules/accounts/load-user.ts";
import { createResetLink } from "./modules/accounts/password-reset.service.ts";
import { createAuditor } from "./modules/admin/admin-audit.ts";
import { setRole } from "./modules/admin/roles.ts";
import { createRegistrationService } from "./modules/invites/registration.service.ts";
import { createPlansService, type PlanName } from "./modules/plans/plans.service.ts";
import { loadOrCreateVapidKeys } from "./modules/push/vapid-keys.ts";
import { createServerKeysRepository } from "./modules/server-keys/server-keys.repository.ts";

const USAGE = [
  "Usage: npm run admin -- plan set EMAIL premium|free [--no-end-date]",
  "       npm run admin -- invite",
  "       npm run admin -- role set EMAIL admin|user",
  "       npm run admin -- password-reset EMAIL",
  "       npm run admin -- copy-to-postgres --from DATA_DIR/daysync.sqlite --to postgres://USER@HOST:5432/DB",
].join("\n");

export async function runAdmin(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; output: string }> {
  if (args[0] === "copy-to-postgres") return copyToPostgres(args.slice(1));
  if (args[0] === "password-reset" && args[1] && args.length === 2) return passwordReset(args[1], env);
  if (args[0] === "invite" && args.length === 1) return invite(env);
  const [area, verb, email, value, option] = args;
  const noEndDate = option === "--no-end-date" && value === "premium";
  if (args.length > (noEndDate ? 5 : 4)) return { code: 2, output: USAGE };
  if (area === "role" && verb === "set" && email && (value === "admin" || value === "user")) return roleSet(email, value, env);
  if (area !== "plan" || verb !== "set" || !email || (value !== "premium" && value !== "free")) return { code: 2, output: USAGE };
  const plan = value;
  const config = loadConfig(env);
  const db = await openDatabase(config);
  // With REDIS_URL, the servers' bus: a device with the app open sees its new plan at once. Without it this bus
  // reaches no server, and open devices get the change from the server's sequence check (LIVE_SEQ_CHECK_MS).
  const adapters = await createAdapters(config);
  try {
    const { plans: planRecords, users, changes } = createRepositories(db);
    const unitOfWork = createUnitOfWork({ db, bus: adapters.bus, clock: systemClock, changes });
    const userUpdated = (work: Work, userId: string) => recordUserUpdated(work, users, userId);
    const plans = createPlansService({ clock: systemClock, unitOfWork, plans: planRecords, users, userUpdated });
    const user = await plans.setPlan(email, plan as PlanName, noEndDate ? NO_END_DATE_MS : undefined);
    const until = hasNoEndDate(Date.parse(user.date_expiration_subscription))
      ? "no end date"
      : `until ${user.date_expiration_subscription}`;
    return {
      code: 0,
      output: `${user.email}: ${user.title_subscription}, retention ${describeRetention(user.max_message_duration)}, ${until}`,
    };
  } catch (error) {
    if (error instanceof AppError) return { code: 1, output: error.message };
    throw error;
  } finally {
    await adapters.close();
    await db.destroy();
  }
}

/** Runs `work` with the repositories and unit of work of the configured installation, then closes everything. */
async function withInstallation(
  env: NodeJS.ProcessEnv,
  work: (parts: {
    config: Config;
    repositories: ReturnType<typeof createRepositories>;
    unitOfWork: ReturnType<typeof createUnitOfWork>;
  }) => Promise<string>,
): Promise<{ code: number; output: string }> {
  const config = loadConfig(env);
  const db = await openDatabase(config);
  // With REDIS_URL, the servers' bus: the person's open devices hear of the change at once (else at the sequence check).
  const adapters = await createAdapters(config);
  try {
    const repositories = createRepositories(db);
    const unitOfWork = createUnitOfWork({ db, bus: adapters.bus, clock: systemClock, changes: repositories.changes });
    return { code: 0, output: await work({ config, repositories, unitOfWork }) };
  } catch (error) {
    if (error instanceof AppError) return { code: 1, output: error.message };
    throw error;
  } finally {
    await adapters.close();
    await db.destroy();
  }
}

function roleSet(email: string, role: "admin" | "user", env: NodeJS.ProcessEnv) {
  return withInstallation(env, async ({ repositories, unitOfWork }) => {
    const { users, admin } = repositories;
    const audit = createAuditor({ clock: systemClock, users, admin });
    const target = await setRole({ clock: systemClock, unitOfWork, users, audit }, "command line", email, role);
    return `${target.email}: ${role === "admin" ? "admin (may open /admin)" : "user (not an admin)"}`;
  });
}

function passwordReset(email: string, env: NodeJS.ProcessEnv) {
  return withInstallation(env, async ({ config, repositories }) => {
    const { users, admin, passwordResets } = repositories;
    const id = await users.idByEmail(email.trim().toLowerCase());
    const target = id && (await users.standing(id));
    if (!target) throw notFound("user with that email");
    const baseUrl = config.identity.publicUrl;
    const link = await createResetLink({ clock: systemClock, users, resets: passwordResets }, target.id, baseUrl);
    await createAuditor({ clock: systemClock, users, admin })("command line", "password_reset.link_created", target, "valid 30 minutes");
    return [`A one-time link to set a new password for ${target.email}, valid 30 minutes:`, link.url].join("\n");
  });
}

/** A one-time link to register (REGISTRATION=invite), on PUBLIC_URL, else http://localhost:PORT. */
function invite(env: NodeJS.ProcessEnv) {
  return withInstallation(env, async ({ config, repositories }) => {
    const { invites, users, admin } = repositories;
    const audit = createAuditor({ clock: systemClock, users, admin });
    const registration = createRegistrationService({ configured: config.registration, clock: systemClock, invites, audit });
    const link = await registration.createInvite("command line", config.identity.publicUrl);
    const days = INVITE_TTL_MS / (24 * 60 * 60 * 1000);
    return [`A one-time link to register on this server, valid ${days} days:`, link.url].join("\n");
  });
}

async function copyToPostgres(args: string[]): Promise<{ code: number; output: string }> {
  const { values } = parseArgs({ args, options: { from: { type: "string" }, to: { type: "string" } }, strict: false });
  const from = typeof values.from === "string" ? values.from : undefined;
  const to = typeof values.to === "string" ? values.to : undefined;
  if (!from || !to?.startsWith("postgres")) return { code: 2, output: USAGE };
  if (!existsSync(from)) return { code: 1, output: `No SQLite file at ${from}.` };
  try {
    const source = path.resolve(from);
    const counts = await copySqliteToPostgres(source, to, (db) =>
      loadOrCreateVapidKeys(createServerKeysRepository(db), path.dirname(source), systemClock.now()),
    );
    const lines = Object.entries(counts).map(([table, n]) => `  ${table}: ${n}`);
    return { code: 0, output: [`Copied ${from} into PostgreSQL:`, ...lines, "Start the server with DATABASE_URL set to it."].join("\n") };
  } catch (error) {
    if (error instanceof TargetNotEmpty) return { code: 1, output: error.message };
    throw error;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { code, output } = await runAdmin(process.argv.slice(2));
  (code === 0 ? console.log : console.error)(output);
  process.exit(code);
}
