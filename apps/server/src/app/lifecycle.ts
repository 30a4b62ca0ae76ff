/**
 * What runs beside the requests and how it ends: the metrics' counts, the retention sweep on a timer, and the order
 * in which a closing server stops its work before its connections.
 */
import type { Adapters } from "../adapters/adapters.ts";
import type { Config } from "../config/config.ts";
import type { Db } from "../db/database.ts";
import type { UnitOfWork } from "../feed/unit-of-work.ts";
import type { ApiServer } from "../http/answers.ts";
import type { Metrics } from "../http/metrics.ts";
import type { RetentionSweeper } from "../modules/retention/retention.sweeper.ts";
import type { Mail } from "./mail.ts";

/** Messages sent, live sockets open and disk space left, for whoever reads the metrics. */
export function countInMetrics(
  metrics: Metrics,
  deps: { unitOfWork: UnitOfWork; openSockets: () => number; config: Pick<Config, "dataDir" | "filesDir"> },
): void {
  deps.unitOfWork.subscribe(["message.created", "discussion.message.created"], ({ change }) =>
    metrics.messageSent(change.kind === "message.created" ? "day" : "discussion"),
  );
  metrics.countLiveConnections(deps.openSockets);
  metrics.watchDiskSpace("data", deps.config.dataDir);
  metrics.watchDiskSpace("files", deps.config.filesDir);
}

/** A sweep once ready, then every `intervalMs`, stopped at close. */
export function sweepOnTimer(app: ApiServer, sweeper: RetentionSweeper, intervalMs: number): void {
  // A failed pass is logged and the next one tries again: it never stops a server that is serving.
  const pass = () => void sweeper.sweepAsLeader().catch((error) => app.log.error({ err: error }, "retention sweep failed"));
  const timer = setInterval(pass, intervalMs);
  timer.unref();
  app.addHook("onReady", async () => pass());
  app.addHook("onClose", async () => clearInterval(timer));
}

/** At close: the work under way ends first, then what it writes to (Redis, the database). */
export function closeInOrder(
  app: ApiServer,
  parts: {
    sweeper: RetentionSweeper;
    live: { settled: () => Promise<void> };
    mail: Mail;
    stopActivity: () => Promise<void>;
    adapters: Pick<Adapters, "close">;
    db: Db;
  },
): void {
  app.addHook("onClose", async () => {
    // A sweep still running would otherwise fail on a closed database and release its lock on a closed Redis.
    await parts.sweeper.settled();
    await parts.live.settled();
    // Mails asked for before the stop are still sent; their links are in the database by then.
    await parts.mail.outbox?.settled();
    parts.mail.mailer?.close();
    await parts.stopActivity();
    await parts.adapters.close();
    await parts.db.destroy();
  });
}
