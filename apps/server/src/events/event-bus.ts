/** Says "this user's data changed" to every live connection of that user, in this process or (scaled out) others. */
import type { LiveEvent } from "@daysync/shared";

export interface UserChange {
  userId: string;
  seq: number;
  event: LiveEvent;
}

export type SessionNotice = { kind: "session.revoked"; userId: string; sessionId: string };

/** A pairing request was approved or denied: its waiting device (on any process) is told. */
export type PairingNotice = { kind: "pairing.decided"; requestId: string };

export interface EventBus {
  publish(change: UserChange): void;
  subscribe(userId: string, listener: (change: UserChange) => void): () => void;
  publishSession(notice: SessionNotice): void;
  subscribeSessions(listener: (notice: SessionNotice) => void): () => void;
  publishPairing(notice: PairingNotice): void;
  subscribePairing(listener: (notice: PairingNotice) => void): () => void;
  close(): Promise<void>;
}

/** The default bus for one process. */
export function createInProcessBus(): EventBus {
  const byUser = new Map<string, Set<(c: UserChange) => void>>();
  const sessionListeners = new Set<(n: SessionNotice) => void>();
  const pairingListeners = new Set<(n: PairingNotice) => void>();
  return {
    publish(change) {
      for (const l of byUser.get(change.userId) ?? []) l(change);
    },
    subscribe(userId, listener) {
      const set = byUser.get(userId) ?? new Set();
      byUser.set(userId, set);
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0) byUser.delete(userId);
      };
    },
    publishSession(notice) {
      for (const l of sessionListeners) l(notice);
    },
    subscribeSessions(listener) {
      sessionListeners.add(listener);
      return () => sessionListeners.delete(listener);
    },
    publishPairing(notice) {
      for (const l of pairingListeners) l(notice);
    },
    subscribePairing(listener) {
      pairingListeners.add(listener);
      return () => pairingListeners.delete(listener);
    },
    async close() {
      byUser.clear();
      sessionListeners.clear();
      pairingListeners.clear();
    },
  };
}
