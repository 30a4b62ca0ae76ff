import { useSyncExternalStore } from "react";

/** Key index.html reads before first paint, so both must stay in step. */
export const THEME_STORAGE_KEY = "daysync-theme";

export type Theme = "light" | "dark";

const DARK_QUERY = "(prefers-color-scheme: dark)";
const listeners = new Set<() => void>();

function isTheme(value: unknown): value is Theme {
  return value === "light" || value === "dark";
}

/** The theme the visitor chose, or null while the app follows the system. */
export function getChosenTheme(): Theme | null {
  try {
    const value = localStorage.getItem(THEME_STORAGE_KEY);
    return isTheme(value) ? value : null;
  } catch {
    // Storage can be blocked (private mode, sandboxed frames): follow the system then.
    return null;
  }
}

export function getSystemTheme(): Theme {
  return typeof matchMedia === "function" && matchMedia(DARK_QUERY).matches ? "dark" : "light";
}

/** The theme on screen right now. */
export function getTheme(): Theme {
  return getChosenTheme() ?? getSystemTheme();
}

function applyToDocument(chosen: Theme | null): void {
  const root = document.documentElement;
  if (chosen) root.dataset.theme = chosen;
  else delete root.dataset.theme;
}

function notify(): void {
  for (const listener of listeners) listener();
}

/** Remembers the choice and applies it to the whole app; null goes back to following the system. */
export function setTheme(theme: Theme | null): void {
  try {
    if (theme) localStorage.setItem(THEME_STORAGE_KEY, theme);
    else localStorage.removeItem(THEME_STORAGE_KEY);
  } catch {
    // Not remembered, but still applied for this page.
  }
  applyToDocument(theme);
  notify();
}

export function toggleTheme(): void {
  setTheme(getTheme() === "dark" ? "light" : "dark");
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const media = typeof matchMedia === "function" ? matchMedia(DARK_QUERY) : null;
  // Another tab changed the choice: apply it here too.
  const onStorage = (event: StorageEvent) => {
    if (event.key !== THEME_STORAGE_KEY && event.key !== null) return;
    applyToDocument(getChosenTheme());
    listener();
  };
  media?.addEventListener("change", listener);
  window.addEventListener("storage", onStorage);
  return () => {
    listeners.delete(listener);
    media?.removeEventListener("change", listener);
    window.removeEventListener("storage", onStorage);
  };
}

/** The theme on screen, re-rendering when the visitor, another tab or the system changes it. */
export function useTheme(): Theme {
  return useSyncExternalStore(subscribe, getTheme, () => "light");
}
