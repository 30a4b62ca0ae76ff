/**
 * Health for load balancers and orchestrators: `live` says the process answers (restart it if not), `ready` that what
 * it needs works (send it no traffic if not): each check named, 503 when one fails. What failed is logged in full;
 * the answer, open to anyone, only names it.
 */
import { API, responseSchemas } from "@daysync/shared";
import { type ApiServer, answers } from "./answers.ts";
import { rateLimitPer } from "./rate-limit.ts";

/** Something the server needs, and how to see that it works (resolves) or not (rejects). */
export interface ReadinessCheck {
  name: string;
  check: () => Promise<void>;
}

/**
 * Readiness per client address (issue 42): each request reaches the database, Redis and the disk, and anyone may ask.
 * A probe every few seconds stays far below it.
 */
export const READY_RATE_LIMIT = { max: 60, windowMs: 60_000 };

/** A check that takes longer than this counts as failed: a probe must not hang on a stuck database or volume. */
const CHECK_TIMEOUT_MS = 3_000;

type Outcome = "ok" | "failed" | "timeout";

async function run(check: ReadinessCheck, onFailure: (error: unknown) => void): Promise<Outcome> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<Outcome>((resolve) => {
    timer = setTimeout(() => resolve("timeout"), CHECK_TIMEOUT_MS);
  });
  const checked = check.check().then(
    (): Outcome => "ok",
    (error: unknown): Outcome => {
      onFailure(error);
      return "failed";
    },
  );
  try {
    return await Promise.race([checked, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function healthRoutes(app: ApiServer, checks: readonly ReadinessCheck[]): void {
  const live = async () => ({ ok: true as const });
  app.get("/api/health", { schema: answers(responseSchemas.ok) }, live);
  app.get(API.healthLive, { schema: answers(responseSchemas.ok) }, live);

  app.get(
    API.healthReady,
    {
      schema: { response: { "2xx": responseSchemas.ready, 503: responseSchemas.ready } },
      config: rateLimitPer("address", READY_RATE_LIMIT, "readiness checks"),
    },
    async (request, reply) => {
      const outcomes = await Promise.all(
        checks.map(async (check) => {
          const outcome = await run(check, (err) => request.log.warn({ err, check: check.name }, "readiness check failed"));
          if (outcome === "timeout") request.log.warn({ check: check.name }, "readiness check timed out");
          return [check.name, outcome] as const;
        }),
      );
      const ok = outcomes.every(([, outcome]) => outcome === "ok");
      return reply.status(ok ? 200 : 503).send({ ok, checks: Object.fromEntries(outcomes) });
    },
  );
}
