import type { z } from "zod";
import { badRequest } from "./errors.ts";

/** Parses input with a shared contract; the first problem becomes a 400 naming its field. */
export function parse<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.length ? issue.path.map(String).join(".") : undefined;
  throw badRequest(issue?.message ?? "Invalid input.", field);
}
