/** Web Push: keeps each device's subscription and tells the user's other devices about a new message. */
import {
  type DeletedMessagesPush,
  DISCUSSION_ROUTES,
  type Discussion,
  type DiscussionMessage,
  dayPath,
  type Message,
  type NewMessagePush,
  type PushSubscriptionInput,
} from "@daysync/shared";
import type { FastifyBaseLogger } from "fastify";
import type { Clock } from "../../clock.ts";
import type { EventBus } from "../../events/event-bus.ts";
import type { Origin, UnitOfWork } from "../../feed/unit-of-work.ts";
import type { SessionAuth } from "../../http/auth.ts";
import { badRequest, conflict } from "../../http/errors.ts";
import type { PushSubscriptionRow, PushSubscriptionsRepository } from "./push-subscriptions.repository.ts";
import type { PushResult, PushSender } from "./web-push.adapter.ts";

/** How long a push service may hold a notification for a device that is away; never past the message's expiry. */
const PUSH_TTL_SECONDS = 60 * 60;
/** How long a user's subscriptions are kept in memory, and for how many users at most. */
const KEEP_MS = 60_000;
const MAX_KEPT_USERS = 10_000;
const BODY_LENGTH = 140;

/**
 * The push services of the browsers people use. The server POSTs to whatever endpoint a browser gives,
 * so endpoints are limited to these hosts rather than letting anyone aim the server at an internal address.
 */
const PUSH_SERVICE_HOSTS = ["fcm.googleapis.com", "push.services.mozilla.com", "push.apple.com", "notify.windows.com"];

export function isPushServiceUrl(endpoint: string): boolean {
  const url = new URL(endpoint);
  if (url.protocol !== "https:") return false;
  return PUSH_SERVICE_HOSTS.some((host) => url.hostname === host || url.hostname.endsWith(`.${host}`));
}

const shortened = (text: string) => (text.length > BODY_LENGTH ? `${text.slice(0, BODY_LENGTH - 1)}…` : text);

export function payloadOf(message: Message): NewMessagePush {
  const where = {
    kind: "message.created",
    title: "New message",
    day_id: message.date_message_id,
    message_id: message.id,
    message_type: message.type,
    url: dayPath(message.date_message_id),
  } as const;
  // A sealed message's text is the devices' to read: the service worker opens its sealed preview.
  if (message.epoch !== undefined) {
    const { user_id, epoch, preview = "", date, time } = message;
    return { ...where, body: "", sealed: { user_id, epoch, preview, date, time, device_id: message.device?.id ?? "" } };
  }
  const text = message.type === "text" ? message.content : `📎 ${message.filename}`;
  return { ...where, body: shortened(text) };
}

/** A discussion's message as the other members' devices show it: the author only by their display name. */
export function discussionPayloadOf(discussion: Discussion, message: DiscussionMessage): NewMessagePush {
  const where = { kind: "message.created", day_id: discussion.id, discussion_id: discussion.id, message_id: message.id } as const;
  // An encrypted discussion's texts, names and title are the members' devices' to read: only the sealed preview goes.
  if (message.generation !== undefined) {
    const { generation, sender_key_id = "", preview = "", type, date, time } = message;
    return {
      ...where,
      title: "",
      body: "",
      url: DISCUSSION_ROUTES.one(discussion.id),
      room: { generation, sender_key_id, preview, type, date, time },
    };
  }
  const text = message.type === "text" ? message.content : message.filename;
  return {
    kind: "message.created",
    title: discussion.title,
    body: shortened(`${message.author.display_name}: ${text}`),
    day_id: discussion.id,
    discussion_id: discussion.id,
    message_id: message.id,
    url: DISCUSSION_ROUTES.one(discussion.id),
  };
}

export function createPushService(deps: {
  subscriptions: PushSubscriptionsRepository;
  sender: PushSender;
  publicKey: string;
  clock: Clock;
  log: FastifyBaseLogger;
  /** Minutes a user's messages live (null: unlimited). */
  retentionOf: (userId: string) => Promise<number | null>;
  /** Tests play the push service on http://127.0.0.1. */
  allowAnyEndpoint?: boolean;
  bus: EventBus;
  /** Where a change of the subscriptions commits; every process hears `push.changed` once it has. */
  unitOfWork: UnitOfWork;
  /** Told how each notification went ("error": no answer at all); the metrics count them. */
  onSent?: ((result: PushResult | "error") => void) | undefined;
}) {
  const { subscriptions, sender, clock, log, bus } = deps;

  /**
   * Each user's subscriptions, kept for a minute: every send looks them up, and they change only when a device
   * subscribes, unsubscribes or signs out, which every process hears of on the bus (the minute bounds the rest:
   * an expired session deleted by no one in particular).
   */
  const byUser = new Map<string, { rows: Promise<PushSubscriptionRow[]>; until: number }>();
  const forget = (userId: string) => byUser.delete(userId);
  bus.subscribe("push.changed", (notice) => forget(notice.userId));
  bus.subscribe("session.revoked", (notice) => forget(notice.userId));
  /** Changes the user's subscriptions; once committed, every process forgets what it kept of them. */
  async function change<T>(userId: string, write: (repo: PushSubscriptionsRepository) => Promise<T>): Promise<T> {
    const result = await deps.unitOfWork.forUser(userId, async (work) => {
      const written = await write(subscriptions.in(work.trx));
      work.notify("push.changed", { userId });
      return written;
    });
    forget(userId);
    return result;
  }

  function subscriptionsOf(userId: string): Promise<PushSubscriptionRow[]> {
    const now = clock.now();
    const kept = byUser.get(userId);
    if (kept && kept.until > now) return kept.rows;
    if (byUser.size >= MAX_KEPT_USERS) byUser.clear();
    const rows = subscriptions.listForUser(userId);
    byUser.set(userId, { rows, until: now + KEEP_MS });
    rows.catch(() => forget(userId));
    return rows;
  }

  /** Sends to each of the user's `targets`; an endpoint the push service says is gone is forgotten. */
  async function sendToAll(userId: string, targets: PushSubscriptionRow[], payload: string, ttl: number): Promise<void> {
    await Promise.all(
      targets.map(async (t) => {
        try {
          const result = await sender.send({ endpoint: t.endpoint, keys: { p256dh: t.p256dh, auth: t.auth } }, payload, ttl);
          deps.onSent?.(result);
          if (result === "gone") {
            await change(userId, (repo) => repo.removeById(t.id));
          } else if (result === "failed") log.warn({ subscription: t.id }, "push service refused a notification");
        } catch (error) {
          deps.onSent?.("error");
          log.warn({ err: error, subscription: t.id }, "push notification failed");
        }
      }),
    );
  }

  /** Tells the user's devices but the deleting one that messages went, so a notification still showing one closes. */
  async function sendDeletion(userId: string, deletingSessionId: string, payload: string): Promise<void> {
    const targets = (await subscriptionsOf(userId)).filter((t) => t.session_id !== deletingSessionId);
    if (targets.length > 0) await sendToAll(userId, targets, payload, PUSH_TTL_SECONDS);
  }

  return {
    publicKey: () => deps.publicKey,

    async subscribe(auth: SessionAuth, input: PushSubscriptionInput): Promise<void> {
      if (!deps.allowAnyEndpoint && !isPushServiceUrl(input.endpoint)) {
        throw badRequest("This push service is not supported.", "endpoint");
      }
      const stored = await change(auth.userId, (repo) =>
        repo.upsert(
          { userId: auth.userId, sessionId: auth.sessionId, endpoint: input.endpoint, p256dh: input.keys.p256dh, auth: input.keys.auth },
          clock.now(),
        ),
      );
      if (!stored) throw conflict("conflict", "This push subscription belongs to another account.");
    },

    async unsubscribe(auth: SessionAuth, endpoint: string): Promise<void> {
      await change(auth.userId, (repo) => repo.removeForUser(auth.userId, endpoint));
    },

    /**
     * Notifies every other device of the sender (never the sending one). A device that has Daysync open and
     * visible gets the push too; its service worker sees the visible window and shows nothing.
     */
    async notifyNewMessage(from: Origin, message: Message): Promise<void> {
      const targets = (await subscriptionsOf(from.userId)).filter((t) => t.session_id !== from.sessionId);
      if (targets.length === 0) return;
      // A push delivered after the message expired would show its text: the push service drops it first.
      const minutes = await deps.retentionOf(from.userId);
      const secondsLeft = minutes === null ? Number.POSITIVE_INFINITY : (message.timestamps + minutes * 60_000 - clock.now()) / 1000;
      const ttl = Math.floor(Math.min(PUSH_TTL_SECONDS, secondsLeft));
      if (ttl <= 0) return;
      await sendToAll(from.userId, targets, JSON.stringify(payloadOf(message)), ttl);
    },

    /**
     * Notifies the devices of every member of a discussion but the author (none of the author's devices: they
     * see their own message). Held no longer than the discussion lasts.
     */
    async notifyDiscussionMessage(
      from: Origin,
      created: { discussion: Discussion; message: DiscussionMessage; memberUserIds: readonly string[] },
    ): Promise<void> {
      const { discussion, message } = created;
      const ttl = Math.floor(Math.min(PUSH_TTL_SECONDS, (discussion.ends_at - clock.now()) / 1000));
      if (ttl <= 0) return;
      const payload = JSON.stringify(discussionPayloadOf(discussion, message));
      await Promise.all(
        created.memberUserIds
          .filter((userId) => userId !== from.userId)
          .map(async (userId) => sendToAll(userId, await subscriptionsOf(userId), payload, ttl)),
      );
    },

    /**
     * Tells the devices of a discussion's members (all but the deleting one) that messages went from it, so that a
     * notification still showing one of them closes.
     */
    async notifyDiscussionDeleted(from: Origin, deleted: { messageIds: string[]; memberUserIds: readonly string[] }): Promise<void> {
      const payload: DeletedMessagesPush = { kind: "messages.deleted", message_ids: deleted.messageIds, day_ids: [] };
      const json = JSON.stringify(payload);
      await Promise.all(deleted.memberUserIds.map((userId) => sendDeletion(userId, from.sessionId, json)));
    },

    /**
     * Tells the user's other devices that messages went, so that a notification still showing one of them
     * closes. The deleting device closes its own.
     */
    async notifyDeleted(from: Origin, deleted: Omit<DeletedMessagesPush, "kind">): Promise<void> {
      const payload: DeletedMessagesPush = { kind: "messages.deleted", ...deleted };
      await sendDeletion(from.userId, from.sessionId, JSON.stringify(payload));
    },
  };
}

export type PushService = ReturnType<typeof createPushService>;
