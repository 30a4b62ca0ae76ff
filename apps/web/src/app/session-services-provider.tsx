import type { User } from "@daysync/shared";
import { useQueryClient } from "@tanstack/react-query";
import { type ReactNode, useEffect, useMemo } from "react";
import { toast } from "react-toastify";
import { searchAgainWithNewKeys } from "../features/dashboard/api/search.ts";
import type { CacheChange } from "../lib/cache-changes.ts";
import { LiveConnection } from "../lib/live-connection.ts";
import { OfflineCache } from "../lib/offline-cache.ts";
import { Outbox } from "../lib/outbox.ts";
import { noteMessageDeletion } from "../lib/sealing/deletion-notes.ts";
import { DeviceKeys } from "../lib/sealing/device-keys.ts";
import { forgetKeys } from "../lib/sealing/key-store.ts";
import { applyRoomEvent, reloadRoom } from "../lib/sealing/room-hooks.ts";
import { Rooms } from "../lib/sealing/rooms.ts";
import { setMe } from "../lib/session.ts";
import { type SessionServices, SessionServicesContext } from "../lib/session-services.ts";
import { uploadQueueFor } from "../lib/upload-queue.ts";
import { roomStart } from "../lib/upload-start.ts";
import { applyChange } from "./change-kinds.ts";
import { keptKinds, keptRoomStates } from "./offline-kinds.ts";

/**
 * Creates this tab's live connection, outbox and upload queue for the signed-in user and stops them when the
 * user changes or the signed-in frame goes away (sign-out). Live events, the outbox's answers and the features'
 * own changes all reach the caches and services through their kind's entry in `change-kinds.ts`. Every feature below reads these services with
 * useSessionServices(), so the chat can be shown in more than one place. What this device had of the user is put
 * back in the caches first and kept as they change (lib/offline-cache.ts), so the app also opens offline.
 */
export function SessionServicesProvider({ user, children }: { user: User; children: ReactNode }) {
  const queryClient = useQueryClient();
  // Read before the first render of the pages below, so an offline start shows what this device had at once.
  // biome-ignore lint/correctness/useExhaustiveDependencies: one copy per user; the plan's message lifetime, read at the start, only filters what is read back.
  const offlineCache = useMemo(() => {
    const cache = new OfflineCache(user.id, queryClient, keptKinds(user));
    cache.restore();
    return cache;
  }, [user.id, queryClient]);
  const services = useMemo(() => {
    const keys = new DeviceKeys(user.id);
    const rooms = new Rooms(user.id, keys, keptRoomStates(queryClient));
    const apply = (change: CacheChange) => applyChange(change, { queryClient, keys });
    const outbox = new Outbox(
      user.id,
      apply,
      {
        seal: (message) => keys.seal(message),
        catchUp: () => keys.refresh(),
        stored: (id) => keys.stored(id),
        noteDeletion: (id) => noteMessageDeletion(keys, user.id, id),
        sendToRoom: (discussionId, message) => rooms.send(discussionId, message),
      },
      // Sends and deletions of the user's days go over the live socket while it is current (issue 47); `live` is made
      // below, before anything is sent.
      (body) => live.sendOwn(body),
      (id) => live.deleteOwn(id),
    );
    const live = new LiveConnection({
      userId: user.id,
      queryClient,
      applyEvent: apply,
      applyOtherEvent: (event) => applyRoomEvent(queryClient, event),
      onReady: () => {
        // Back in touch with the server: keys that could not be fetched before are fetched now, then the outbox goes on.
        if (keys.getStatus().state === "failed") void keys.refresh();
        void outbox.flush();
      },
      onSessionEnded: () => {
        toast.info("You were signed out on this device.");
        void forgetKeys(user.id);
        setMe(queryClient, null);
      },
    });
    const uploads = uploadQueueFor(user.id);
    uploads.sealWith({
      sealer: () => keys.sealer(),
      catchUp: () => keys.refresh(),
      stored: (id) => keys.stored(id),
      roomStart: async (discussionId, file) =>
        (await rooms.isEncrypted(discussionId)) ? roomStart((toSeal) => rooms.sealFile(discussionId, toSeal), file) : null,
    });
    return { applyChange: apply, live, outbox, uploads, keys, rooms };
  }, [user.id, queryClient]);
  useEffect(() => {
    offlineCache.start();
    return () => offlineCache.stop();
  }, [offlineCache]);
  useEffect(() => {
    services.outbox.start();
    services.live.start();
    // What waited for a key goes out, and the device's search opens again with the epochs it holds now.
    const unsubscribe = services.keys.subscribe(() => {
      void services.outbox.flush();
      services.uploads.keysChanged();
      searchAgainWithNewKeys(queryClient);
      // Rooms read before this device had the account's keys open now.
      for (const roomId of services.rooms.withoutKey()) reloadRoom(queryClient, roomId);
    });
    // A room's keys moved here (a generation taken or made): its waiting texts go, its messages open again.
    const unsubscribeRooms = services.rooms.subscribe((roomId) => {
      void services.outbox.flush();
      services.uploads.keysChanged();
      void queryClient.invalidateQueries({ queryKey: ["opened-room", roomId] });
    });
    void services.keys.refresh();
    return () => {
      unsubscribe();
      unsubscribeRooms();
      services.live.stop();
      services.outbox.stop();
      services.keys.stop();
    };
  }, [services, queryClient]);
  const value = useMemo<SessionServices>(() => ({ user, ...services }), [user, services]);
  return <SessionServicesContext.Provider value={value}>{children}</SessionServicesContext.Provider>;
}
