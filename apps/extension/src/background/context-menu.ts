/**
 * "Send to Daysync" in the page's context menu: the selected text, a link's address, or the page's address, queued
 * and sent as a text of today. Before pairing it opens the setup page instead.
 */
import { loadConnection } from "../lib/connection.ts";

export const MENU_ID = "send-to-daysync";
export const MENU_TITLE = "Send to Daysync";

/** Made again at each start of the worker (the browser keeps menus of an installed extension, but not for every start). */
export async function createMenu(): Promise<void> {
  await chrome.contextMenus.removeAll();
  chrome.contextMenus.create({ id: MENU_ID, title: MENU_TITLE, contexts: ["selection", "link", "page"] });
}

/** What a click sends: the selection first, then the link under the pointer, then the page's address. */
export function textOfClick(info: chrome.contextMenus.OnClickData): string | undefined {
  const candidates = [info.selectionText, info.linkUrl, info.pageUrl];
  return candidates.find((text) => text !== undefined && text.trim() !== "");
}

/** The menu's click: `send` queues the text; without a session the setup page opens. */
export async function onMenuClick(info: chrome.contextMenus.OnClickData, send: (text: string) => Promise<void>): Promise<void> {
  if (info.menuItemId !== MENU_ID) return;
  if (!(await loadConnection())) {
    await chrome.runtime.openOptionsPage();
    return;
  }
  const text = textOfClick(info);
  if (text) await send(text);
}
