/**
 * The composition root: picks the adapters from config, opens the database, builds the repositories and services,
 * and mounts every module's routes on the HTTP kernel (`http/`). Modules never import from here.
 */
import { CONTACT } from "@daysync/shared";
import type { FastifyInstance } from "fastify";
import { createAdapters } from "../adapters/adapters.ts";
import { type Clock, systemClock } from "../clock.ts";
import type { Config } from "../config/config.ts";
import { type Db, openDatabase, pingDatabase } from "../db/database.ts";
import { groupCommit, separateTransactions } from "../db/group-commit.ts";
import type { EventBus } from "../events/event-bus.ts";
import { createUnitOfWork } from "../feed/unit-of-work.ts";
import { createAccountDeletion } from "../flows/account-deletion.ts";
import { registerAuth } from "../http/auth.ts";
import { healthRoutes } from "../http/health.ts";
import { createHttpServer, type LogStream, registerHttpPlugins } from "../http/http-server.ts";
import { createMetrics, serveMetrics } from "../http/metrics.ts";
import { sharedLimitPerAccount, sharedLimitPerSession } from "../http/rate-limit.ts";
import { serveWebApp } from "../http/web-app.ts";
import { accountSettingsRoutes } from "../modules/accounts/account-settings.routes.ts";
import { createAccountSettingsService } from "../modules/accounts/account-settings.service.ts";
import { accountsRoutes } from "../modules/accounts/accounts.routes.ts";
import { createAccountsService } from "../modules/accounts/accounts.service.ts";
import { createFreshCheck } from "../modules/accounts/fresh-check.ts";
import { recordUserUpdated } from "../modules/accounts/load-user.ts";
import { createPasswordResetService } from "../modules/accounts/password-reset.service.ts";
import { sessionRowsOfDevices } from "../modules/accounts/sessions.repository.ts";
import { createActivityCounter } from "../modules/admin/activity-counter.ts";
import { adminRoutes } from "../modules/admin/admin.routes.ts";
import { createAdminService } from "../modules/admin/admin.service.ts";
import { createAuditor } from "../modules/admin/admin-audit.ts";
import { devicesRoutes } from "../modules/devices/devices.routes.ts";
import { createDevicesService } from "../modules/devices/devices.service.ts";
import { deleteEmailLinksOf } from "../modules/email/email.repository.ts";
import { createEmailVerificationService } from "../modules/email/email-verification.service.ts";
import { type HomeNetwork, homeNetworkRoutes } from "../modules/home-network/home-network.routes.ts";
import { identitiesRoutes } from "../modules/identities/identities.routes.ts";
import { createIdentitiesService } from "../modules/identities/identities.service.ts";
import { invitesRoutes } from "../modules/invites/invites.routes.ts";
import { createRegistrationService } from "../modules/invites/registration.service.ts";
import { createKeyHandover } from "../modules/keys/key-handover.ts";
import { createDeletionNotesRepository } from "../modules/messages/deletion-notes.repository.ts";
import { deletionNotesRoutes } from "../modules/messages/deletion-notes.routes.ts";
import { renameDeviceOnMessages } from "../modules/messages/messages.repository.ts";
import { messagesRoutes } from "../modules/messages/messages.routes.ts";
import { createMessagesService } from "../modules/messages/messages.service.ts";
import { ownDelete } from "../modules/messages/own-delete.ts";
import { ownSend } from "../modules/messages/own-send.ts";
import { endPairingsOfSession } from "../modules/pairing/pairing.repository.ts";
import { pairingRoutes } from "../modules/pairing/pairing.routes.ts";
import { createPairingService } from "../modules/pairing/pairing.service.ts";
import { pairingLiveRoutes } from "../modules/pairing/pairing-live.routes.ts";
import { pairingTypedRoutes } from "../modules/pairing/pairing-typed.routes.ts";
import { createPairingTypedService } from "../modules/pairing/pairing-typed.service.ts";
import { plansRoutes } from "../modules/plans/plans.routes.ts";
import { createPlansService } from "../modules/plans/plans.service.ts";
import { pushRoutes } from "../modules/push/push.routes.ts";
import { createPushService } from "../modules/push/push.service.ts";
import { loadOrCreateVapidKeys } from "../modules/push/vapid-keys.ts";
import { createWebPushSender } from "../modules/push/web-push.adapter.ts";
import { createRetentionSweeper, type RetentionSweeper } from "../modules/retention/retention.sweeper.ts";
import { uploadsRoutes } from "../modules/uploads/uploads.routes.ts";
import { createUploadsService } from "../modules/uploads/uploads.service.ts";
import { liveRoutes } from "../realtime/live.routes.ts";
import { createDiskStorage } from "../storage/disk-storage.ts";
import type { FileStorage } from "../storage/file-storage.ts";
import { registerDiscussionRoutes } from "./discussion-routes.ts";
import { registerKeyRoutes } from "./key-routes.ts";
import { closeInOrder, countInMetrics, sweepOnTimer } from "./lifecycle.ts";
import { createMail, registerEmailRoutes } from "./mail.ts";
import { registerPaymentRoutes } from "./payment-routes.ts";
import { givenPublicUrl } from "./public-url.ts";
import { createRepositories } from "./repositories.ts";
import { subscribeSideEffects } from "./side-effects.ts";

export interface AppParts {
  app: FastifyInstance;
  db: Db;
  bus: EventBus;
  sweeper: RetentionSweeper;
  storage: FileStorage;
  /** Whether the installation has an admin yet: `main.ts` says so at start while it has none. */
  hasAdmin: () => Promise<boolean>;
  /** Resolves when every mail asked for so far is sent or given up (tests read the mailbox after it). */
  mailSettled: () => Promise<void>;
}

export interface BuildOptions {
  clock?: Clock;
  /** Run the retention sweeper once ready, then on a timer (off in tests, which call sweep() themselves). */
  sweepOnTimer?: boolean;
  /** Where log lines go instead of standard output (tests read them). */
  logStream?: LogStream;
  /** The home network's HTTPS addresses and authority (`app/home-network.ts`); unset: links use PUBLIC_URL only. */
  homeNetwork?: HomeNetwork;
}

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<AppParts> {
  const clock = options.clock ?? systemClock;
  // Only when someone may read them: otherwise nothing is counted, and nothing costs a thing.
  const metrics = config.metrics.token || config.metrics.port ? createMetrics() : undefined;
  const db = await openDatabase(config, { onError: metrics?.databaseError });
  const app = createHttpServer(config, options.logStream);
  serveMetrics(app, metrics, config.metrics);
  const adapters = await createAdapters(config, (err) => {
    metrics?.busError();
    app.log.error({ err }, "redis failed");
  });
  const { bus, presence } = adapters;
  const repositories = createRepositories(db);
  const { sessions, users, changes } = repositories;
  // A sign-out on any process ends the session's cached lookup here too.
  bus.subscribe("session.revoked", (notice) => sessions.forget(notice.sessionId));
  // A rename too: the cached lookup holds the device's name, which its next message must carry.
  bus.subscribe("session.renamed", (notice) => sessions.forget(notice.sessionId));
  // On SQLite, sends share commits: those of one turn, and those that arrive while a batch runs (decision 014).
  const sendTransaction = config.databaseUrl ? separateTransactions(db) : groupCommit(db);
  const unitOfWork = createUnitOfWork({
    db,
    bus,
    clock,
    changes,
    sendTransaction,
    onSubscriberError: (err, change) => app.log.error({ err, kind: change.kind }, "what follows a change failed"),
  });
  const plans = createPlansService({
    clock,
    unitOfWork,
    plans: repositories.plans,
    users,
    userUpdated: (work, userId) => recordUserUpdated(work, users, userId),
  });
  // Mail (issue 26) only with SMTP_URL; without it the verification service is there and sends nothing.
  const mail = createMail({ config, repositories, unitOfWork, clock, log: app.log });
  const mailOutbox = mail.outbox;
  const devices = createDevicesService({
    clock,
    unitOfWork,
    devices: repositories.devices,
    presence,
    endedWithSession: endPairingsOfSession,
    sessionRows: sessionRowsOfDevices,
    renamedOnMessages: renameDeviceOnMessages,
  });
  const emailVerification = createEmailVerificationService({
    outbox: mailOutbox,
    email: repositories.email,
    users,
    unitOfWork,
    clock,
    siteUrl: config.identity.publicUrl,
    accountWindowMs: config.email.accountRateLimit.windowMs,
    devices,
  });
  const registration = createRegistrationService({
    configured: config.registration,
    clock,
    invites: repositories.invites,
    audit: createAuditor({ clock, users, admin: repositories.admin }),
  });
  const accounts = createAccountsService({
    db,
    clock,
    sessions,
    users,
    plans: repositories.plans,
    serverKeys: repositories.serverKeys,
    spaces: repositories.spaces,
    registration,
    onRegistered: emailVerification.sendLater,
    sendsMail: mailOutbox !== undefined,
  });
  const messages = createMessagesService({
    clock,
    unitOfWork,
    messages: repositories.messages,
    access: repositories.access,
    discussions: repositories.discussions,
    discussionMessages: repositories.discussionMessages,
  });
  const storage = await createDiskStorage(config.filesDir, config.uploadExpiryMs);

  await registerHttpPlugins(app, adapters, clock);
  registerAuth(app, { sessions, clock });

  healthRoutes(app, [
    { name: "database", check: () => pingDatabase(db) },
    ...(adapters.ping ? [{ name: "redis", check: adapters.ping }] : []),
    { name: "files", check: () => storage.checkWritable() },
  ]);
  accountsRoutes(app, {
    accounts,
    sessions,
    devices,
    cookieSecure: config.cookieSecure,
    loginRateLimit: config.loginRateLimit,
    registerRateLimit: config.registerRateLimit,
  });
  const freshCheck = createFreshCheck({ clock, sessions, accounts });
  const identities = createIdentitiesService({
    config: config.identity,
    clock,
    accounts,
    identities: repositories.identities,
    devices,
    sessions,
    freshCheck,
    log: app.log,
  });
  // Every check of an account's current password, on any route and from any of its sessions, counts against one limit.
  const passwordChecks = sharedLimitPerAccount(app, "password-checks", config.loginRateLimit);
  identitiesRoutes(app, { identities, cookieSecure: config.cookieSecure, linkRateLimit: config.loginRateLimit, passwordChecks });
  // Each provider is reached once at start, without holding the start up: a problem is logged, never fatal.
  app.addHook("onReady", async () => void identities.checkAll());
  plansRoutes(app, { plans });
  homeNetworkRoutes(
    app,
    options.homeNetwork ?? {
      url: givenPublicUrl(config) ?? null,
      secureUrls: [],
      trustUrl: null,
      authority: undefined,
    },
  );
  const keyHandover = createKeyHandover({ clock, unitOfWork, keys: repositories.keys });
  const pairing = createPairingService({
    pairingRequests: repositories.pairingRequests,
    users,
    clock,
    unitOfWork,
    sessions,
    devices,
    keyHandover,
  });
  const vapid = await loadOrCreateVapidKeys(repositories.serverKeys, config.dataDir, clock.now());
  const push = createPushService({
    subscriptions: repositories.pushSubscriptions,
    sender: createWebPushSender(vapid, `mailto:${CONTACT.email}`),
    publicKey: vapid.publicKey,
    clock,
    log: app.log,
    retentionOf: repositories.plans.retentionOf,
    allowAnyEndpoint: config.env === "test",
    bus,
    unitOfWork,
    onSent: metrics?.pushSent,
  });
  const uploadsService = createUploadsService({
    storage,
    uploads: repositories.uploads,
    plans: repositories.plans,
    messages,
    access: repositories.access,
    sessions,
    keys: repositories.keys,
    clock,
    config,
    locker: adapters.tusLocker,
    onFinished: metrics?.uploadFinished,
  });
  const activity = createActivityCounter({ admin: repositories.admin, now: clock.now });
  const stopActivity = activity.start((err) => app.log.warn({ err }, "activity counts not written"));
  subscribeSideEffects(unitOfWork, { push, uploads: uploadsService, bus, log: app.log, activity });
  // A message to one's own days counts against one limit per device, sent over HTTP or the live socket (issue 47).
  const send = ownSend({ messages, limit: sharedLimitPerSession(app, "messages", config.sendRateLimit, "messages") });
  // A deletion of one of those, likewise by either road; neither road counts it against a limit.
  const remove = ownDelete({ messages });
  messagesRoutes(app, { messages, send, remove, sendRateLimit: config.sendRateLimit });
  deletionNotesRoutes(app, { notes: createDeletionNotesRepository(db), now: clock.now, rateLimit: config.sendRateLimit });
  const discussions = registerDiscussionRoutes(app, { config, clock, unitOfWork, repositories, storage, uploads: uploadsService });
  const passwordResets = createPasswordResetService({
    db,
    clock,
    users,
    resets: repositories.passwordResets,
    devices,
  });
  const payments = registerPaymentRoutes(app, { config, clock, unitOfWork, repositories, discussions });
  const deletion = createAccountDeletion({
    unitOfWork,
    users,
    devices,
    discussions,
    uploads: uploadsService,
    removeFile: (id) => storage.remove(id),
    now: clock.now,
    // A Premium subscription at Stripe ends with the account: nobody is charged for an account that is gone.
    cancelPayments: payments?.cancelSubscriptionsOf,
    audit: createAuditor({ clock, users, admin: repositories.admin }),
  });
  const accountSettings = createAccountSettingsService({
    clock,
    unitOfWork,
    users,
    spaces: repositories.spaces,
    freshCheck,
    accounts,
    devices,
    deletion,
    deleteEmailLinksOf,
    // With SMTP, the new address gets a verification link (after the answer: the mail server may be slow).
    onEmailChanged: async (userId) => emailVerification.sendLater(userId),
  });
  accountSettingsRoutes(app, { settings: accountSettings, cookieSecure: config.cookieSecure, passwordChecks });
  const admin = createAdminService({
    clock,
    users,
    admin: repositories.admin,
    plans,
    devices,
    deletion,
    resets: passwordResets,
    presence,
    storage,
    activity,
  });
  invitesRoutes(app, {
    registration,
    admin,
    site: {
      contact_phone: config.site.contactPhone,
      contact_email: config.site.contactEmail,
      brand_line: config.site.brandLine,
      app_store_url: config.site.appStoreUrl,
      play_store_url: config.site.playStoreUrl,
    },
    publicUrl: givenPublicUrl(config),
  });
  adminRoutes(app, {
    admin,
    resets: passwordResets,
    publicUrl: givenPublicUrl(config),
    resetRateLimit: config.loginRateLimit,
    accounts,
    devices,
    cookieSecure: config.cookieSecure,
  });
  registerEmailRoutes(app, { config, mail, repositories, clock, verification: emailVerification, accounts, devices });
  const sweeper = createRetentionSweeper({
    clock,
    unitOfWork,
    plans,
    plansRepository: repositories.plans,
    messages: repositories.messages,
    changes,
    closeExpiredDiscussions: () => discussions.closeExpired(),
    removeAbandonedUploads: () => storage.removeExpired(),
    locks: adapters.locks,
    leaseMs: config.sweepIntervalMs,
    onPass: metrics?.sweeperRan,
  });

  devicesRoutes(app, { devices, cookieSecure: config.cookieSecure });
  registerKeyRoutes(app, { clock, unitOfWork, repositories });
  pairingRoutes(app, { pairing, cookieSecure: config.cookieSecure });
  pairingLiveRoutes(app, { pairing, bus, limits: config.socketLimits });
  pairingTypedRoutes(app, {
    typed: createPairingTypedService({
      pairingRequests: repositories.pairingRequests,
      keys: repositories.keys,
      keyHandover,
      clock,
      unitOfWork,
    }),
  });
  pushRoutes(app, { push });
  const live = liveRoutes(app, {
    changes,
    repositories,
    bus,
    clock,
    sessions,
    presence,
    limits: config.socketLimits,
    seqCheckMs: config.liveSeqCheckMs,
    send,
    remove,
  });
  uploadsRoutes(app, { uploadsService, storage });
  await serveWebApp(app, config.webDist);

  if (metrics) countInMetrics(metrics, { unitOfWork, openSockets: live.openSockets, config });
  if (options.sweepOnTimer) sweepOnTimer(app, sweeper, config.sweepIntervalMs);
  closeInOrder(app, { sweeper, live, mail, stopActivity, adapters, db });

  return { app, db, bus, sweeper, storage, hasAdmin: admin.hasAdmin, mailSettled: async () => mailOutbox?.settled() };
}
