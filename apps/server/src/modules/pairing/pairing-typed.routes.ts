/** The typed code's exchange of a QR pairing (pairing-typed.service.ts): /api/pair/typed/:id and its steps. */
import {
  pairingAnswerSchema,
  pairingConfirmSchema,
  pairingDenySchema,
  pairingExchangeParamsSchema,
  pairingRejectSchema,
  pairingTypedApproveSchema,
  responseSchemas,
} from "@daysync/shared";
import { type ApiServer, answers } from "../../http/answers.ts";
import { requireAuth } from "../../http/auth.ts";
import { rateLimitPer } from "../../http/rate-limit.ts";
import { parse } from "../../http/validate.ts";
import type { PairingTypedService } from "./pairing-typed.service.ts";

/** Per address and minute, as the other pairing routes. */
const limit = (max: number) => rateLimitPer("address", { max, windowMs: 60_000 });
const schema = answers(responseSchemas.pairingTyped);

export function pairingTypedRoutes(app: ApiServer, deps: { typed: PairingTypedService }) {
  const { typed } = deps;
  const idOf = (params: unknown) => parse(pairingExchangeParamsSchema, params).id;

  app.get("/api/pair/typed/:id", { config: limit(120), schema }, async (request) => {
    const auth = requireAuth(request);
    return { exchange: await typed.view(auth, idOf(request.params)) };
  });

  app.post("/api/pair/typed/:id/answer", { config: limit(60), schema }, async (request) => {
    const auth = requireAuth(request);
    return { exchange: await typed.answer(auth, idOf(request.params), parse(pairingAnswerSchema, request.body)) };
  });

  app.post("/api/pair/typed/:id/approve", { config: limit(60), schema }, async (request) => {
    const auth = requireAuth(request);
    return { exchange: await typed.approve(auth, idOf(request.params), parse(pairingTypedApproveSchema, request.body)) };
  });

  // Anonymous: the new device proves itself with its request's secret.
  app.post("/api/pair/typed/:id/confirm", { config: limit(30), schema }, async (request) => {
    return { exchange: await typed.confirm(idOf(request.params), parse(pairingConfirmSchema, request.body)) };
  });

  app.post("/api/pair/typed/:id/reject", { config: limit(30), schema }, async (request) => {
    return { exchange: await typed.reject(idOf(request.params), parse(pairingRejectSchema, request.body)) };
  });

  // Either side: the new device by its secret, or a signed-in device.
  app.post("/api/pair/typed/:id/deny", { config: limit(30), schema }, async (request) => {
    return { exchange: await typed.deny(request.auth ?? null, idOf(request.params), parse(pairingDenySchema, request.body ?? {})) };
  });
}
