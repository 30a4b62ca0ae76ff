/**
 * Daysync's service worker: keeps the app shell (every built file) cached so the app opens offline,
 * shows Web Push notifications of new messages and opens their day when tapped, and receives what a
 * phone's share sheet sends (Web Share Target), and opens sealed files for downloads and players.
 */
import { PENDING_SHARE_MESSAGES, SHARE_TARGET_PATH } from "@daysync/shared";
import { clientsClaim } from "workbox-core";
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from "workbox-precaching";
import { NavigationRoute, registerRoute } from "workbox-routing";
import { SEALED_FILES_PATH } from "../lib/sealing/sealed-files.ts";
import { TAKE_CONTROL_MESSAGE } from "../lib/worker-control.ts";
import { handlePush, openNotificationTarget } from "./push-notifications.ts";
import { serveSealedFile } from "./sealed-files.ts";
import { deliverPendingShares, PENDING_SYNC_TAG, receiveShare } from "./share-target.ts";

/** Background Sync's event, which TypeScript's worker library does not list. */
declare global {
  interface ServiceWorkerGlobalScopeEventMap {
    sync: ExtendableEvent & { readonly tag: string };
  }
}

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: Array<{ url: string; revision: string | null }> };

self.skipWaiting();
clientsClaim();

precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();

// A sealed file's route comes first: a download link navigated to directly is this worker's, not the app shell's.
registerRoute(
  ({ url, request, sameOrigin }) => sameOrigin && request.method === "GET" && url.pathname.startsWith(SEALED_FILES_PATH),
  serveSealedFile,
);

// App routes are the app's to resolve: any navigation gets the cached shell (API, share target, sealed files excepted).
registerRoute(
  new NavigationRoute(createHandlerBoundToURL("/index.html"), {
    denylist: [/^\/api\//, /^\/share-target/, /^\/sealed-files\//, /^\/trust(\/|$)/],
  }),
);

registerRoute(({ url, request }) => url.pathname === SHARE_TARGET_PATH && request.method === "POST", receiveShare, "POST");

self.addEventListener("push", (event) => event.waitUntil(handlePush(self, event.data)));
self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(openNotificationTarget(self, event.notification.data, event.action));
});

// A page that has signed in asks for what was shared while signed out, and hears how it went; a page loaded by a
// hard reload asks to be controlled.
self.addEventListener("message", (event) => {
  if (event.data?.type === TAKE_CONTROL_MESSAGE) return event.waitUntil(self.clients.claim());
  if (event.data?.type !== PENDING_SHARE_MESSAGES.deliver) return;
  event.waitUntil(
    deliverPendingShares().then((outcome) => {
      if (outcome) event.source?.postMessage({ type: PENDING_SHARE_MESSAGES.outcome, outcome });
    }),
  );
});

// Background Sync (where the browser has it): back online, send what was shared offline without waiting for the app.
self.addEventListener("sync", (event) => {
  if (event.tag === PENDING_SYNC_TAG) event.waitUntil(deliverPendingShares());
});
