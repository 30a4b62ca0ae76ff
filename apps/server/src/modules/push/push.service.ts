/** Web Push: keeps each device's subscription and tells the user's other devices about a new message. */
import { dayPath, type Message, type PushPayload, type PushSubscriptionInput } from "@daysync/shared";
import type { FastifyBaseLogger } from "fastify";
import type { Clock } from "../../clock.ts";
import { badRequest, conflict } from "../../http/errors.ts";
import type { SessionAuth } from "../accounts/sessions.repository.ts";
import type { PushSubscriptionsRepository } from "./push-subscriptions.repository.ts";
import type { PushSender } from "./web-push.adapter.ts";

/** How long a push service may hold a notification for a device that is away; never past the message's expiry. */
const PUSH_TTL_SECONDS = 60 * 60;
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

export function payloadOf(message: Message): PushPayload {
  const text = message.type === "text" ? message.content : `📎 ${message.filename}`;
  return {
    kind: "message.created",
    title: "New message",
    body: text.length > BODY_LENGTH ? `${text.slice(0, BODY_LENGTH - 1)}…` : text,
    day_id: message.date_message_id,
    message_id: message.id,
    url: dayPath(message.date_message_id),
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
}) {
  const { subscriptions, sender, clock, log } = deps;

  return {
    publicKey: () => deps.publicKey,

    async subscribe(auth: SessionAuth, input: PushSubscriptionInput): Promise<void> {
      if (!deps.allowAnyEndpoint && !isPushServiceUrl(input.endpoint)) {
        throw badRequest("This push service is not supported.", "endpoint");
      }
      const stored = await subscriptions.upsert(
        { userId: auth.userId, sessionId: auth.sessionId, endpoint: input.endpoint, p256dh: input.keys.p256dh, auth: input.keys.auth },
        clock.now(),
      );
      if (!stored) throw conflict("conflict", "This push subscription belongs to another account.");
    },

    unsubscribe: (auth: SessionAuth, endpoint: string) => subscriptions.removeForUser(auth.userId, endpoint),

    /**
     * Notifies every other device of the sender (never the sending one). A device that has Daysync open and
     * visible gets the push too; its service worker sees the visible window and shows nothing.
     */
    async notifyNewMessage(from: SessionAuth, message: Message): Promise<void> {
      const targets = await subscriptions.listForUserExcept(from.userId, from.sessionId);
      if (targets.length === 0) return;
      // A push delivered after the message expired would show its text: the push service drops it first.
      const minutes = await deps.retentionOf(from.userId);
      const secondsLeft = minutes === null ? Number.POSITIVE_INFINITY : (message.timestamps + minutes * 60_000 - clock.now()) / 1000;
      const ttl = Math.floor(Math.min(PUSH_TTL_SECONDS, secondsLeft));
      if (ttl <= 0) return;
      const payload = JSON.stringify(payloadOf(message));
      await Promise.all(
        targets.map(async (t) => {
          try {
            const result = await sender.send({ endpoint: t.endpoint, keys: { p256dh: t.p256dh, auth: t.auth } }, payload, ttl);
            if (result === "gone") await subscriptions.removeById(t.id);
            else if (result === "failed") log.warn({ subscription: t.id }, "push service refused a notification");
          } catch (error) {
            log.warn({ err: error, subscription: t.id }, "push notification failed");
          }
        }),
      );
    },
  };
}

export type PushService = ReturnType<typeof createPushService>;
