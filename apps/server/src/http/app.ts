/** Builds the Daysync server: API, live connection, retention sweeper and the web app, from one set of parts. */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { CONTACT, type Message, responseSchemas } from "@daysync/shared";
import fastifyCompress from "@fastify/compress";
import fastifyCookie from "@fastify/cookie";
import fastifyRateLimit from "@fastify/rate-limit";
import fastifyStatic from "@fastify/static";
import fastifyWebsocket from "@fastify/websocket";
import Fastify, { type FastifyError, type FastifyInstance } from "fastify";
import { createAdapters } from "../adapters/adapters.ts";
import { type Clock, systemClock } from "../clock.ts";
import type { Config } from "../config/config.ts";
import { type Db, openDatabase } from "../db/database.ts";
import type { EventBus } from "../events/event-bus.ts";
import { accountsRoutes } from "../modules/accounts/accounts.routes.ts";
import { createAccountsService } from "../modules/accounts/accounts.service.ts";
import { createSessionsRepository, type SessionAuth } from "../modules/accounts/sessions.repository.ts";
import { devicesRoutes } from "../modules/devices/devices.routes.ts";
import { createDevicesService } from "../modules/devices/devices.service.ts";
import { retentionOf } from "../modules/messages/messages.repository.ts";
import { messagesRoutes } from "../modules/messages/messages.routes.ts";
import { createMessagesService } from "../modules/messages/messages.service.ts";
import { pairingRoutes } from "../modules/pairing/pairing.routes.ts";
import { createPairingService } from "../modules/pairing/pairing.service.ts";
import { pairingLiveRoutes } from "../modules/pairing/pairing-live.routes.ts";
import { plansRoutes } from "../modules/plans/plans.routes.ts";
import { createPlansService } from "../modules/plans/plans.service.ts";
import { pushRoutes } from "../modules/push/push.routes.ts";
import { createPushService } from "../modules/push/push.service.ts";
import { createPushSubscriptionsRepository } from "../modules/push/push-subscriptions.repository.ts";
import { loadOrCreateVapidKeys } from "../modules/push/vapid-keys.ts";
import { createWebPushSender } from "../modules/push/web-push.adapter.ts";
import { createRetentionSweeper, type RetentionSweeper } from "../modules/retention/retention.sweeper.ts";
import { createUploadsRepository } from "../modules/uploads/uploads.repository.ts";
import { uploadsRoutes } from "../modules/uploads/uploads.routes.ts";
import { createUploadsService } from "../modules/uploads/uploads.service.ts";
import { liveRoutes } from "../realtime/live.routes.ts";
import { createDiskStorage } from "../storage/disk-storage.ts";
import type { FileStorage } from "../storage/file-storage.ts";
import { answerSerializer, answers, type SharedSchemas } from "./answers.ts";
import { registerAuth } from "./auth.ts";
import { AppError, codeForStatus, errorBody } from "./errors.ts";
import { refuseForeignWrites } from "./origin.ts";
import { registerSecurityHeaders } from "./security-headers.ts";

export interface AppParts {
  app: FastifyInstance;
  db: Db;
  bus: EventBus;
  sweeper: RetentionSweeper;
  storage: FileStorage;
}

export interface BuildOptions {
  clock?: Clock;
  /** Run the retention sweeper on a timer (off in tests, which call sweep() themselves). */
  sweepOnTimer?: boolean;
}

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<AppParts> {
  const clock = options.clock ?? systemClock;
  const db = await openDatabase(config);
  const app = Fastify({
    logger: { level: config.logLevel },
    trustProxy: config.trustProxy,
    // On close, idle keep-alive connections go at once; requests in flight (an upload's bytes) finish first.
    forceCloseConnections: "idle",
  }).withTypeProvider<SharedSchemas>();
  app.setSerializerCompiler(answerSerializer(config.env === "test"));
  const adapters = await createAdapters(config, (err) => app.log.error({ err }, "redis failed"));
  const { bus } = adapters;
  const sessions = createSessionsRepository(db);
  // A sign-out on any process ends the session's cached lookup here too.
  bus.subscribe("session.revoked", (notice) => sessions.forget(notice.sessionId));
  const plans = createPlansService({ db, clock, bus });
  const accounts = createAccountsService({ db, clock, sessions });
  const messages = createMessagesService({ db, clock, bus });
  const storage = await createDiskStorage(config.filesDir, config.uploadExpiryMs);
  const uploads = createUploadsRepository(db);

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AppError) {
      if (error.status === 429) reply.header("retry-after", String(Math.max(1, Number(/\d+/.exec(error.message)?.[0] ?? 1))));
      return reply.status(error.status).send(errorBody(error.code, error.message, error.field));
    }
    const status = error.statusCode ?? 500;
    if (status < 500) return reply.status(status).send(errorBody(codeForStatus(status), error.message));
    request.log.error({ err: error }, "request failed");
    return reply.status(500).send(errorBody("internal", "Something went wrong on our side. Please try again."));
  });

  registerSecurityHeaders(app, { webDist: config.webDist, cookieSecure: config.cookieSecure });

  app.addHook("onRequest", refuseForeignWrites);

  // Text answers (the app's JS and CSS, JSON) are compressed; files and tus bytes are not.
  await app.register(fastifyCompress, {
    threshold: 1024,
    encodings: ["br", "gzip"],
    brotliOptions: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } },
  });
  await app.register(fastifyCookie);
  await app.register(fastifyRateLimit, { global: false, ...adapters.rateLimitStore });
  await app.register(fastifyWebsocket, {
    options: { maxPayload: 64 * 1024 },
    // On shutdown every socket hears 1001 (going away), so its device reconnects to another process at once.
    preClose(this: FastifyInstance, done: () => void) {
      for (const client of this.websocketServer.clients) client.close(1001, "Server shutting down");
      this.websocketServer.close();
      done();
    },
  });
  registerAuth(app, { sessions, clock });

  app.get("/api/health", { schema: answers(responseSchemas.ok) }, async () => ({ ok: true as const }));
  const devices = createDevicesService({ db, clock, bus });
  accountsRoutes(app, {
    accounts,
    sessions,
    devices,
    bus,
    cookieSecure: config.cookieSecure,
    loginRateLimit: config.loginRateLimit,
    registerRateLimit: config.registerRateLimit,
  });
  plansRoutes(app, { plans });
  const pairing = createPairingService({ db, clock, bus, sessions, devices });
  const vapid = await loadOrCreateVapidKeys(db, config.dataDir, clock.now());
  const push = createPushService({
    subscriptions: createPushSubscriptionsRepository(db),
    sender: createWebPushSender(vapid, `mailto:${CONTACT.email}`),
    publicKey: vapid.publicKey,
    clock,
    log: app.log,
    retentionOf: (userId) => retentionOf(db, userId),
    allowAnyEndpoint: config.env === "test",
  });
  /** Every new message, typed or uploaded, notifies the user's other devices. */
  const onMessageCreated = (from: SessionAuth, message: Message) =>
    void push.notifyNewMessage(from, message).catch((err) => app.log.warn({ err }, "push failed"));
  messagesRoutes(app, { messages, sendRateLimit: config.sendRateLimit, onCreated: onMessageCreated });
  const uploadsService = createUploadsService({
    storage,
    uploads,
    messages,
    clock,
    config,
    onCreated: onMessageCreated,
    locker: adapters.tusLocker,
  });
  const sweeper = createRetentionSweeper({
    db,
    clock,
    bus,
    plans,
    onMessagesDeleted: uploadsService.removeForMessages,
    removeAbandonedUploads: () => storage.removeExpired(),
    locks: adapters.locks,
    leaseMs: config.sweepIntervalMs,
  });

  devicesRoutes(app, { devices, cookieSecure: config.cookieSecure });
  pairingRoutes(app, { pairing, cookieSecure: config.cookieSecure });
  pairingLiveRoutes(app, { pairing, bus, limits: config.socketLimits });
  pushRoutes(app, { push });
  liveRoutes(app, { db, bus, clock, sessions, limits: config.socketLimits, seqCheckMs: config.liveSeqCheckMs });
  uploadsRoutes(app, { uploadsService, storage });

  const indexHtml = path.join(config.webDist, "index.html");
  const serveWeb = existsSync(indexHtml);
  // Pages the web build rendered to HTML (login.html answers /login); other app routes get index.html.
  const prerendered = new Map(
    serveWeb
      ? readdirSync(config.webDist)
          .filter((file) => file.endsWith(".html") && file !== "index.html")
          .map((file) => [`/${file.slice(0, -".html".length)}`, file])
      : [],
  );
  if (serveWeb) {
    await app.register(fastifyStatic, {
      root: config.webDist,
      wildcard: true,
      cacheControl: false,
      setHeaders(res, filePath) {
        res.setHeader(
          "cache-control",
          filePath.includes(`${path.sep}assets${path.sep}`) ? "public, max-age=31536000, immutable" : "no-cache",
        );
      },
    });
  }

  app.setNotFoundHandler((request, reply) => {
    if (request.url.startsWith("/api/") || request.url === "/api" || !serveWeb || request.method !== "GET") {
      return reply.status(404).send(errorBody("not_found", `No route ${request.method} ${request.url.split("?")[0]}.`));
    }
    // App routes are the React app's to resolve; it shows its own 404 screen.
    const page = prerendered.get(request.url.split("?")[0] ?? "") ?? "index.html";
    return reply.header("cache-control", "no-cache").sendFile(page);
  });

  if (options.sweepOnTimer) {
    const timer = setInterval(() => {
      sweeper.sweepAsLeader().catch((error) => app.log.error({ err: error }, "retention sweep failed"));
    }, config.sweepIntervalMs);
    timer.unref();
    app.addHook("onClose", async () => clearInterval(timer));
  }
  // While closing, connections whose request finishes after the stop began go as soon as they are idle;
  // a kept-alive one would otherwise hold the stop open until its timeout.
  let closingIdle: ReturnType<typeof setInterval> | undefined;
  app.addHook("preClose", async () => {
    closingIdle = setInterval(() => app.server.closeIdleConnections(), 100);
  });
  app.addHook("onClose", async () => {
    clearInterval(closingIdle);
    await adapters.close();
    await db.destroy();
  });

  return { app, db, bus, sweeper, storage };
}
