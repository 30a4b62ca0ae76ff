/** The HTTP kernel every module's routes run in: Fastify with the error handler, security headers, plugins and stop behaviour. */
import zlib from "node:zlib";
import { LIVE_MAX_FRAME_BYTES } from "@daysync/shared";
import fastifyCompress from "@fastify/compress";
import fastifyCookie from "@fastify/cookie";
import fastifyRateLimit from "@fastify/rate-limit";
import fastifyWebsocket from "@fastify/websocket";
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest, LogController } from "fastify";
import type { Adapters } from "../adapters/adapters.ts";
import type { Clock } from "../clock.ts";
import type { Config, TrustProxy } from "../config/config.ts";
import { type ApiServer, answerSerializer, type SharedSchemas } from "./answers.ts";
import { errorAnswerOf } from "./errors.ts";
import { refuseForeignWrites } from "./origin.ts";
import { registerSecurityHeaders } from "./security-headers.ts";
import { socketErrorHandler } from "./socket-errors.ts";

/** Where log lines can go instead of standard output: pino writes each line as one JSON text. */
export interface LogStream {
  write(line: string): void;
}

/**
 * Which hops of `X-Forwarded-For` Fastify may believe. A hop count is given as proxy-addr's trust function: Fastify's
 * own number option trusts no hop at all, so the proxy's address would be taken for every client.
 */
function trustedProxies(trust: TrustProxy) {
  if (typeof trust === "number") return (_address: string, hop: number) => hop < trust;
  return trust;
}

/**
 * Fastify writes two info lines for every request, which fill the log of a server nobody is debugging: here a request
 * is one line at debug (with its method, path, status and time), and a failed one still one at error.
 */
class QuietRequestLogs extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) super.requestCompleted(error, request, reply);
    else reply.log.debug({ req: request, res: reply, responseTime: reply.elapsedTime }, "request completed");
  }
}

/**
 * Fastify with answers typed (and, in tests, checked) by the shared response schemas, the named-error handler,
 * the security headers and the Origin check for writes. `logStream`: where log lines go instead of standard output.
 */
export function createHttpServer(
  config: Pick<Config, "env" | "logLevel" | "trustProxy" | "webDist" | "cookieSecure">,
  logStream?: LogStream,
): ApiServer {
  const app = Fastify({
    logger: { level: config.logLevel, ...(logStream && { stream: logStream }) },
    logController: new QuietRequestLogs(),
    trustProxy: trustedProxies(config.trustProxy),
    // On close, idle keep-alive connections go at once; requests in flight (an upload's bytes) finish first.
    forceCloseConnections: "idle",
  }).withTypeProvider<SharedSchemas>();
  app.setSerializerCompiler(answerSerializer(config.env === "test"));

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const answer = errorAnswerOf(error);
    if (answer.status >= 500) request.log.error({ err: error }, "request failed");
    if (answer.retryAfterSeconds !== undefined) reply.header("retry-after", String(answer.retryAfterSeconds));
    return reply.status(answer.status).send(answer.body);
  });

  registerSecurityHeaders(app, { webDist: config.webDist, cookieSecure: config.cookieSecure });

  app.addHook("onRequest", refuseForeignWrites);

  // While closing, connections whose request finishes after the stop began go as soon as they are idle;
  // a kept-alive one would otherwise hold the stop open until its timeout.
  let closingIdle: ReturnType<typeof setInterval> | undefined;
  app.addHook("preClose", async () => {
    closingIdle = setInterval(() => app.server.closeIdleConnections(), 100);
  });
  app.addHook("onClose", async () => clearInterval(closingIdle));
  return app;
}

/** Compression, cookies, rate limits (in the store the adapters chose) and WebSockets; `clock` paces socket error logs. */
export async function registerHttpPlugins(app: ApiServer, parts: Pick<Adapters, "rateLimitStore">, clock: Clock): Promise<void> {
  // Text answers (the app's JS and CSS, JSON) are compressed; files and tus bytes are not.
  await app.register(fastifyCompress, {
    threshold: 1024,
    encodings: ["br", "gzip"],
    brotliOptions: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } },
  });
  await app.register(fastifyCookie);
  await app.register(fastifyRateLimit, { global: false, ...parts.rateLimitStore });
  await app.register(fastifyWebsocket, {
    options: { maxPayload: LIVE_MAX_FRAME_BYTES },
    errorHandler: socketErrorHandler(clock),
    // On shutdown every socket hears 1001 (going away), so its device reconnects to another process at once.
    preClose(this: FastifyInstance, done: () => void) {
      for (const client of this.websocketServer.clients) client.close(1001, "Server shutting down");
      this.websocketServer.close();
      done();
    },
  });
}
