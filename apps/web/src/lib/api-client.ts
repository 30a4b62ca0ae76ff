import { apiErrorBodySchema } from "@daysync/shared";
import type { z } from "zod";

/** An error answer of the API, with the stable code and the sentence of its JSON body. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

type Answer = z.ZodType | undefined;
/** What a call resolves with: the answer read by its schema, or nothing for an answer without a body (204). */
type AnswerOf<S extends Answer> = S extends z.ZodType ? z.output<S> : undefined;

interface RequestOptions<S extends Answer> {
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  body?: unknown;
  signal?: AbortSignal;
  /** The shared schema of the answer (`responseSchemas`); without one the body is not read. */
  answer?: S;
}

/**
 * Where the API is and what each call adds: this page's origin with its cookie, unless a client set up elsewhere (the
 * browser extension, issue 46) points it at its server with headers of its own (its token; no cookie then).
 */
let target: { base: string; headers: Record<string, string> } = { base: "", headers: {} };

/** Sends every later call to `base` (an origin) with `headers`, and without the browser's cookies for it. */
export function pointApiAt(base: string, headers: Record<string, string>): void {
  target = { base, headers };
}

/** Where a request of `path` goes, and how it is signed in, for calls that do not go through `apiFetch` (files). */
export const apiRequestOf = (path: string): { url: string; credentials: RequestCredentials; headers: Record<string, string> } => ({
  url: target.base + path,
  credentials: target.base ? "omit" : "same-origin",
  headers: target.headers,
});

/** An answer that is not what the contract says: the app shows the generic sentence rather than break on it. */
const UNREADABLE_ANSWER = "Something went wrong. Please try again.";

/**
 * Calls the Daysync API; resolves with the answer read through its shared schema (undefined without one)
 * or throws an ApiError, also when the answer does not match the schema.
 */
export async function apiFetch<S extends Answer = undefined>(
  path: string,
  { method = "GET", body, signal, answer }: RequestOptions<S> = {},
): Promise<AnswerOf<S>> {
  const headers: Record<string, string> = { Accept: "application/json", ...target.headers };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(target.base + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: target.base ? "omit" : "same-origin",
    signal,
  });
  if (res.status === 204) return undefined as AnswerOf<S>;
  const text = await res.text();
  let data: unknown = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!res.ok) {
    const failure = apiErrorBodySchema.safeParse(data);
    if (failure.success) {
      const { code, message, field } = failure.data.error;
      throw new ApiError(res.status, code, message, field);
    }
    throw new ApiError(res.status, `http_${res.status}`, res.statusText || `Request failed (${res.status}).`);
  }
  if (!answer) return undefined as AnswerOf<S>;
  const read = answer.safeParse(data);
  if (!read.success) throw new ApiError(res.status, "invalid_answer", UNREADABLE_ANSWER);
  return read.data as AnswerOf<S>;
}

export const api = {
  get: <S extends z.ZodType>(path: string, answer: S, signal?: AbortSignal) => apiFetch(path, { answer, signal }),
  post: <S extends Answer = undefined>(path: string, body?: unknown, answer?: S) => apiFetch(path, { method: "POST", body, answer }),
  put: <S extends z.ZodType>(path: string, body: unknown, answer: S) => apiFetch(path, { method: "PUT", body, answer }),
  delete: <S extends z.ZodType>(path: string, answer: S) => apiFetch(path, { method: "DELETE", answer }),
};
