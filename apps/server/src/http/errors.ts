import { ACCOUNT_DISABLED_MESSAGE, type ApiErrorBody } from "@daysync/shared";

/** Named errors: each carries its HTTP status and a stable code; one handler turns them into JSON. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    /** When to try again (a 429), sent as `Retry-After`. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, field?: string) => new AppError(400, "validation", message, field);
export const unauthenticated = () => new AppError(401, "unauthenticated", "Please sign in to continue.");
export const invalidCredentials = () => new AppError(401, "invalid_credentials", "Invalid email or password.");
export const accountDisabled = () => new AppError(403, "account_disabled", ACCOUNT_DISABLED_MESSAGE);
export const forbidden = (message = "You are not allowed to do that.") => new AppError(403, "forbidden", message);
export const notFound = (what: string) => new AppError(404, "not_found", `No such ${what}.`);
export const conflict = (code: string, message: string, field?: string) => new AppError(409, code, message, field);
/** What was there is gone for good (an expired message). */
export const gone = (code: string, message: string) => new AppError(410, code, message);
export const tooManyRequests = (retryAfterSeconds: number, what = "attempts") =>
  new AppError(429, "rate_limited", `Too many ${what}. Try again in ${retryAfterSeconds} seconds.`, undefined, retryAfterSeconds);

const CODES_BY_STATUS: Record<number, string> = {
  400: "validation",
  401: "unauthenticated",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  409: "conflict",
  412: "precondition_failed",
  413: "payload_too_large",
  415: "unsupported_media_type",
  429: "rate_limited",
};

/** The code of an error that did not come with one of ours (Fastify's own, tus's). */
export const codeForStatus = (status: number) => CODES_BY_STATUS[status] ?? "bad_request";

export function errorBody(code: string, message: string, field?: string): ApiErrorBody {
  return { error: field ? { code, message, field } : { code, message } };
}

/** What a failed request answers: a named error as it says, another with a status below 500 by it, the rest as a 500. */
export interface ErrorAnswer {
  status: number;
  body: ApiErrorBody;
  /** Seconds for `Retry-After` (a 429). */
  retryAfterSeconds?: number;
}

export function errorAnswerOf(error: unknown): ErrorAnswer {
  if (error instanceof AppError) {
    const retry = error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: Math.max(1, error.retryAfterSeconds) };
    return { status: error.status, body: errorBody(error.code, error.message, error.field), ...retry };
  }
  const status = statusOf(error);
  if (status < 500) return { status, body: errorBody(codeForStatus(status), error instanceof Error ? error.message : "Bad request.") };
  return { status: 500, body: errorBody("internal", "Something went wrong on our side. Please try again.") };
}

function statusOf(error: unknown): number {
  if (typeof error !== "object" || error === null || !("statusCode" in error)) return 500;
  return typeof error.statusCode === "number" ? error.statusCode : 500;
}
