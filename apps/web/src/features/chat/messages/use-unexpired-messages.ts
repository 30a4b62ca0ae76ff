import type { Message } from "@daysync/shared";
import { useEffect, useReducer } from "react";
import { expiresAt } from "./expiry.ts";

const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** The messages not yet expired; re-renders exactly when the next one expires, so it leaves the view without reload. */
export function useUnexpiredMessages<T extends Message>(messages: readonly T[], maxMinutes: number | null): T[] {
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const now = Date.now();
  let next: number | null = null;
  const visible = messages.filter((m) => {
    const end = expiresAt(m, maxMinutes);
    if (end === null) return true;
    if (end <= now) return false;
    if (next === null || end < next) next = end;
    return true;
  });
  useEffect(() => {
    if (next === null) return;
    const timer = setTimeout(rerender, Math.min(MAX_TIMEOUT_MS, next - Date.now() + 20));
    return () => clearTimeout(timer);
  }, [next]);
  return visible;
}
