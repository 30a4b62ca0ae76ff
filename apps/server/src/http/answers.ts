/**
 * Answers typed by the shared response schemas (packages/shared/src/responses.ts): a route that declares
 * `schema: answers(responseSchemas.user)` can only return that body, or the compiler says so. In tests the
 * server also checks every such answer against its schema on the way out, fields it does not name included,
 * so the whole server suite catches a route drifting from the contract; in production it is JSON.stringify.
 */
import { isDeepStrictEqual } from "node:util";
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifySerializerCompiler,
  FastifyTypeProvider,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from "fastify";
import type { z } from "zod";

/** Types a route's reply by its zod response schema; input is parsed in the handler (`parse`), not here. */
export interface SharedSchemas extends FastifyTypeProvider {
  readonly validator: unknown;
  readonly serializer: this["schema"] extends z.ZodType ? z.input<this["schema"]> : unknown;
}

/** The app as routes see it: replies typed by their response schemas. */
export type ApiServer = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  SharedSchemas
>;

/** Route schema for a JSON answer: every 2xx status of the route answers this body. */
export const answers = <S extends z.ZodType>(schema: S) => ({ response: { "2xx": schema } }) as const;

/** Serializes answers that have a schema; with `check`, refuses (500) one that does not match it exactly. */
export function answerSerializer(check: boolean): FastifySerializerCompiler<unknown> {
  return ({ schema, method, url, httpStatus }) => {
    if (!check) return (data) => JSON.stringify(data);
    const zod = schema as z.ZodType;
    return (data) => {
      const json = JSON.stringify(data);
      const sent: unknown = JSON.parse(json);
      const result = zod.safeParse(sent);
      if (!result.success) throw new Error(`${method} ${url} ${httpStatus} answered outside its schema: ${result.error.message}`);
      if (!isDeepStrictEqual(result.data, sent)) {
        throw new Error(`${method} ${url} ${httpStatus} answered fields its schema does not name: ${json.slice(0, 500)}`);
      }
      return json;
    };
  };
}
