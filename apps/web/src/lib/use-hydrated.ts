import { useSyncExternalStore } from "react";

const noSubscription = () => () => {};

/** False while React takes over HTML rendered at build time (app/prerender.tsx), true from then on. */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}
