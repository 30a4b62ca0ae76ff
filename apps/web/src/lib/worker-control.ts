/**
 * A hard reload leaves the page without its service worker until the next navigation, so sealed files would open in
 * the page's memory and players would not show. The worker takes such a page over when the page asks.
 */
export const TAKE_CONTROL_MESSAGE = "daysync:take-control";

/** Asks the active worker to control this page, if none does. */
export function askWorkerToControl(registration: ServiceWorkerRegistration): void {
  if (!navigator.serviceWorker.controller) registration.active?.postMessage({ type: TAKE_CONTROL_MESSAGE });
}
