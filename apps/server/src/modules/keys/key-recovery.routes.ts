import { KEYS_API, recoveryUnlockSchema, responseSchemas, setRecoverySchema } from "@daysync/shared";
import { type ApiServer, answers } from "../../http/answers.ts";
import { requireAuth } from "../../http/auth.ts";
import { rateLimitPer } from "../../http/rate-limit.ts";
import { parse } from "../../http/validate.ts";
import type { KeyRecoveryService } from "./key-recovery.service.ts";

/** A person types a recovery code a few times at most; the proof is 256 bits, so this only keeps a device from hammering. */
const unlocking = rateLimitPer("session", { max: 10, windowMs: 10 * 60_000 }, "recovery code attempts");

/** The account's recovery code (docs/protocol/encryption.md, "Recovery code"): every route is about the caller's own account only. */
export function keyRecoveryRoutes(app: ApiServer, deps: { recovery: KeyRecoveryService }) {
  const { recovery } = deps;

  app.get(KEYS_API.recovery, { schema: answers(responseSchemas.recovery) }, async (request) => {
    const auth = requireAuth(request);
    return recovery.read(auth.userId);
  });

  app.put(KEYS_API.recovery, { schema: answers(responseSchemas.recovery) }, async (request) => {
    const auth = requireAuth(request);
    return recovery.set(auth.userId, auth.sessionId, parse(setRecoverySchema, request.body));
  });

  app.delete(KEYS_API.recovery, async (request, reply) => {
    const auth = requireAuth(request);
    await recovery.remove(auth.userId, auth.sessionId);
    return reply.status(204).send();
  });

  app.post(KEYS_API.recoveryUnlock, { config: unlocking, schema: answers(responseSchemas.keys) }, async (request) => {
    const auth = requireAuth(request);
    return recovery.unlock(auth.userId, auth.sessionId, parse(recoveryUnlockSchema, request.body));
  });
}
