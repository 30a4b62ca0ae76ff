/**
 * Sends one Web Push message: web-push encrypts the payload (RFC 8291, aes128gcm) and signs the VAPID
 * header (RFC 8292); the request itself goes out with fetch, so the push service's answer is ours to read.
 */
import webpush from "web-push";
import type { VapidKeys } from "./vapid-keys.ts";

export interface PushTarget {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/** delivered: accepted; gone: 404/410, the subscription is dead; failed: try again with the next message. */
export type PushResult = "delivered" | "gone" | "failed";

export interface PushSender {
  send(target: PushTarget, payload: string, ttlSeconds: number): Promise<PushResult>;
}

const SEND_TIMEOUT_MS = 10_000;

export function createWebPushSender(keys: VapidKeys, subject: string): PushSender {
  const vapidDetails = { subject, publicKey: keys.publicKey, privateKey: keys.privateKey };
  return {
    async send(target, payload, ttlSeconds) {
      const details = webpush.generateRequestDetails(target, payload, {
        vapidDetails,
        TTL: ttlSeconds,
        contentEncoding: "aes128gcm",
        urgency: "normal",
      });
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(details.headers)) {
        // fetch works out the length of the body itself.
        if (name.toLowerCase() !== "content-length") headers[name] = String(value);
      }
      const res = await fetch(details.endpoint, {
        method: details.method,
        headers,
        body: details.body,
        redirect: "error",
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      });
      await res.body?.cancel();
      if (res.status === 404 || res.status === 410) return "gone";
      return res.ok ? "delivered" : "failed";
    },
  };
}
