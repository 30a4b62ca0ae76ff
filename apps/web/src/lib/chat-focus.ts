/**
 * The open chat's composer and message list, for the frame's keyboard paths (Escape out of search, the skip
 * link) without the frame importing the chat: the chat registers them here while it is shown.
 */
import { useSyncExternalStore } from "react";

let composer: HTMLTextAreaElement | null = null;
/** Message lists on the page: one, but while a day changes the next may mount before the last unmounts. */
let messageLists = 0;
const listeners = new Set<() => void>();

/** The chat's message box, while it is on the page; returns its unregistering. */
export function registerComposer(input: HTMLTextAreaElement): () => void {
  composer = input;
  return () => {
    if (composer === input) composer = null;
  };
}

/** Puts the cursor in the open chat's message box; false when no chat is open. */
export function focusComposer(): boolean {
  if (!composer?.isConnected) return false;
  composer.focus();
  return true;
}

const sentListeners = new Set<() => void>();

/** The composer sent something: the message list goes to its end, even if its reader had scrolled up. */
export function announceSent(): void {
  for (const listener of sentListeners) listener();
}

/** Called on each send from the composer; returns the unsubscribing. */
export function onSent(listener: () => void): () => void {
  sentListeners.add(listener);
  return () => sentListeners.delete(listener);
}

/** The element the skip link goes to. */
export const MESSAGES_ID = "messages";

/** A chat's message list is on the page (with id MESSAGES_ID) while the caller is mounted. */
export function registerMessages(): () => void {
  messageLists++;
  for (const listener of listeners) listener();
  return () => {
    messageLists--;
    for (const listener of listeners) listener();
  };
}

/** Whether a message list is on the page, for the frame's "Skip to messages" link. */
export function useMessagesShown(): boolean {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => messageLists > 0,
    () => false,
  );
}

/** Whether keys typed here go into a field, or a dialog is open over the page (so page shortcuts leave them alone). */
export function shortcutsDisabledAt(target: EventTarget | null): boolean {
  if (document.querySelector("dialog[open], [role=dialog][aria-modal=true]")) return true;
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  if (target instanceof HTMLInputElement)
    return !["button", "checkbox", "radio", "submit", "reset", "file", "range", "color"].includes(target.type);
  return false;
}
