import { useSyncExternalStore } from "react";

/** Chromium's install event; not in TypeScript's DOM library yet. */
interface BeforeInstallPromptEvent extends Event {
  prompt(): Promise<void>;
  userChoice: Promise<{ outcome: "accepted" | "dismissed" }>;
}

let deferred: BeforeInstallPromptEvent | null = null;
const listeners = new Set<() => void>();
const notify = () => {
  for (const listener of listeners) listener();
};

// Listen from module load: the browser may fire the event before the page that offers the button mounts.
if (typeof window !== "undefined") {
  window.addEventListener("beforeinstallprompt", (event) => {
    event.preventDefault();
    deferred = event as BeforeInstallPromptEvent;
    notify();
  });
  window.addEventListener("appinstalled", () => {
    deferred = null;
    notify();
  });
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export type InstallOutcome = "accepted" | "dismissed" | "unavailable";

/** Whether the browser offers its install prompt, and a function that shows it. */
export function useInstallPrompt(): { available: boolean; install: () => Promise<InstallOutcome> } {
  const available = useSyncExternalStore(
    subscribe,
    () => deferred !== null,
    () => false,
  );
  const install = async (): Promise<InstallOutcome> => {
    const event = deferred;
    if (!event) return "unavailable";
    deferred = null;
    notify();
    await event.prompt();
    return (await event.userChoice).outcome;
  };
  return { available, install };
}
