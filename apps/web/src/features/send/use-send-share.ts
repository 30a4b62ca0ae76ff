import { formatStoredDate, formatStoredTime } from "@daysync/shared";
import { useCallback, useEffect, useState, useSyncExternalStore } from "react";
import { useSessionServices } from "../../lib/session-services.ts";
import { newUuid } from "../../lib/uuid.ts";
import { clearPendingSend, onPendingSend, readPendingSend } from "./pending-send.ts";

export const SEND_TEXT = {
  sent: "Sent",
  sending: "Sending…",
  offline: "You are offline: it will be sent when the connection is back.",
  waitingForApproval: "Waiting for one of your other devices to approve this one",
  notPaired: "This browser is not paired with your Daysync account yet.",
} as const;

/** How the message this page sent is doing: said in words in the page's status region. */
export type SendState =
  | { kind: "sent" }
  /** percent: 0–100, for files on their way. */
  | { kind: "waiting"; text: string; percent?: number }
  | { kind: "failed"; text: string };

const subscribeOnline = (change: () => void) => {
  window.addEventListener("online", change);
  window.addEventListener("offline", change);
  return () => {
    window.removeEventListener("online", change);
    window.removeEventListener("offline", change);
  };
};

/**
 * Puts what was shared (kept by pending-send.ts) into the outbox once this user's services run, the same road as
 * the composer's Send, and follows it: the outbox keeps it until the server stored it, offline or waiting for keys.
 */
export function useSendShare() {
  const { outbox, keys } = useSessionServices();
  const [sent, setSent] = useState<{ id: string; content: string } | null>(null);
  const entries = useSyncExternalStore(outbox.subscribe, outbox.getEntries);
  const keyState = useSyncExternalStore(keys.subscribe, () => keys.getStatus().state);
  const online = useSyncExternalStore(subscribeOnline, () => navigator.onLine);

  const send = useCallback(
    (message: { id: string; content: string }) => {
      if (!outbox.getEntries().some((e) => e.id === message.id)) {
        const now = new Date();
        outbox.enqueue({ ...message, date: formatStoredDate(now), time: formatStoredTime(now) });
      }
      setSent(message);
    },
    [outbox],
  );

  useEffect(() => {
    const sendPending = () => {
      const pending = readPendingSend();
      if (!pending) return;
      send(pending);
      clearPendingSend();
    };
    sendPending();
    return onPendingSend(sendPending);
  }, [send]);

  const entry = sent ? entries.find((e) => e.id === sent.id) : undefined;
  let state: SendState | null = null;
  if (sent && !entry) state = { kind: "sent" };
  else if (entry?.error) state = { kind: "failed", text: entry.error };
  else if (entry && !online) state = { kind: "waiting", text: SEND_TEXT.offline };
  else if (entry && keyState === "locked") state = { kind: "waiting", text: SEND_TEXT.waitingForApproval };
  else if (entry) state = { kind: "waiting", text: entry.notice ?? SEND_TEXT.sending };

  const sendText = useCallback((content: string) => send({ id: newUuid(), content }), [send]);
  return { sent, state, sendText };
}
