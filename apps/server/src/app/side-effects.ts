/**
 * What follows from a committed change, wherever it was made (a route, an upload, the sweeper): Web Push to the
 * other devices, a deleted file message's bytes removed, a signed-out or renamed session told to every process.
 * Subscribed to change kinds once, here.
 */
import type { FastifyBaseLogger } from "fastify";
import type { EventBus } from "../events/event-bus.ts";
import type { UnitOfWork } from "../feed/unit-of-work.ts";
import type { ActivityCounter } from "../modules/admin/activity-counter.ts";
import type { PushService } from "../modules/push/push.service.ts";
import type { UploadsService } from "../modules/uploads/uploads.service.ts";

export function subscribeSideEffects(
  unitOfWork: UnitOfWork,
  deps: {
    push: PushService;
    uploads: Pick<UploadsService, "removeForMessages">;
    bus: EventBus;
    log: FastifyBaseLogger;
    activity: Pick<ActivityCounter, "count">;
  },
): void {
  const { push, uploads, bus, log, activity } = deps;
  // A push is sent in the background: the change is made whether or not a push service answers.
  const inBackground = (sending: Promise<void>) => void sending.catch((err) => log.warn({ err }, "push failed"));

  unitOfWork.subscribe(["message.created", "discussion.message.created"], ({ event, origin, userIds }) => {
    if (event.kind === "message.created" || event.kind === "discussion.message.created") activity.count(event.message.type !== "text");
    // Only what a device sent is pushed to the others.
    if (!origin) return;
    if (event.kind === "message.created") inBackground(push.notifyNewMessage(origin, event.message));
    if (event.kind === "discussion.message.created") {
      inBackground(push.notifyDiscussionMessage(origin, { discussion: event.discussion, message: event.message, memberUserIds: userIds }));
    }
  });

  unitOfWork.subscribe(["messages.deleted", "discussion.messages.deleted"], async ({ change, origin, userIds }) => {
    if (change.kind !== "messages.deleted" && change.kind !== "discussion.messages.deleted") return;
    await uploads.removeForMessages(change.ids);
    // Expired messages go without a push: nothing a device did, and their notifications have lapsed with them.
    if (!origin) return;
    if (change.kind === "discussion.messages.deleted") {
      inBackground(push.notifyDiscussionDeleted(origin, { messageIds: change.ids, memberUserIds: userIds }));
    } else {
      // A cleared day's ids could outgrow a push message; its day id stands for them.
      const deleted = change.clearedDayId ? { message_ids: [], day_ids: [change.clearedDayId] } : { message_ids: change.ids, day_ids: [] };
      inBackground(push.notifyDeleted(origin, deleted));
    }
  });

  // A session that ended closes its sockets and leaves every process's cache of it; a renamed one leaves the caches
  // too, so what the device sends next carries its new name.
  unitOfWork.subscribe(["device.signed_out", "device.renamed"], ({ change, userIds }) => {
    if (change.kind !== "device.signed_out" && change.kind !== "device.renamed") return;
    const [userId = ""] = userIds;
    bus.publish(change.kind === "device.signed_out" ? "session.revoked" : "session.renamed", { userId, sessionId: change.sessionId });
  });
}
