/**
 * What /send was handed in its address's fragment (`#text=…`, `#url=…`, `&title=…`), kept in localStorage until the
 * outbox has it, so that signing in first (or a reload) loses nothing. The fragment never reaches the server.
 */
import { z } from "zod";
import { readStorage, writeStorage } from "../../lib/storage.ts";
import { newUuid } from "../../lib/uuid.ts";

const PENDING_SEND_KEY = "daysync.pendingSend";

/** A shared text waiting to be put in the outbox; its id is the message's, so putting it there twice sends it once. */
export interface PendingSend {
  id: string;
  content: string;
}

/** The text of a share: its text, else its title, then its link on a line of its own. */
export function sharedTextOf(fragment: string): string | null {
  const params = new URLSearchParams(fragment.replace(/^#/, ""));
  const parts = [params.get("text") ?? params.get("title"), params.get("url")].map((part) => part?.trim()).filter(Boolean);
  return parts.length > 0 ? parts.join("\n") : null;
}

const listeners = new Set<() => void>();

/** Called when a share was kept (a fragment that came while /send was already open, say). */
export function onPendingSend(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Reads the address's fragment once: keeps what it shares and removes it from the address bar at once. */
export function takeShareFromAddress(): void {
  if (!window.location.hash) return;
  const content = sharedTextOf(window.location.hash);
  window.history.replaceState(window.history.state, "", window.location.pathname + window.location.search);
  if (!content) return;
  writeStorage(PENDING_SEND_KEY, JSON.stringify({ id: newUuid(), content } satisfies PendingSend));
  for (const listener of listeners) listener();
}

const pendingSendSchema = z.object({ id: z.string().min(1), content: z.string().min(1) });

/** The kept share; null when there is none or what is kept is not one (another version's, or edited by hand). */
export function readPendingSend(): PendingSend | null {
  const raw = readStorage(PENDING_SEND_KEY);
  if (!raw) return null;
  try {
    const parsed = pendingSendSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export function clearPendingSend(): void {
  writeStorage(PENDING_SEND_KEY, null);
}
