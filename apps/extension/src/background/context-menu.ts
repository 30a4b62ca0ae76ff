/**
 * "Send to Daysync" in the page's context menu: the selected text, a link's address or the page's address, queued
 * and sent as a text of today; or an image, sent as a file. Before pairing it opens the setup page instead.
 */
import { loadConnection } from "../lib/connection.ts";

export const MENU_ID = "send-to-daysync";
export const MENU_TITLE = "Send to Daysync";

/** Made again at each start of the worker (the browser keeps menus of an installed extension, but not for every start). */
export async function createMenu(): Promise<void> {
  await chrome.contextMenus.removeAll();
  chrome.contextMenus.create({ id: MENU_ID, title: MENU_TITLE, contexts: ["selection", "link", "image", "page"] });
}

const present = (text: string | undefined): text is string => text !== undefined && text.trim() !== "";

/** What a click sends: the selection first, then the link under the pointer, then the image, then the page's address. */
export function whatToSend(info: chrome.contextMenus.OnClickData): { text: string } | { image: string } | undefined {
  if (present(info.selectionText)) return { text: info.selectionText };
  if (present(info.linkUrl)) return { text: info.linkUrl };
  if (present(info.srcUrl)) return { image: info.srcUrl };
  return present(info.pageUrl) ? { text: info.pageUrl } : undefined;
}

/** The menu's click: `send` queues a text or sends an image; without a session the setup page opens. */
export async function onMenuClick(
  info: chrome.contextMenus.OnClickData,
  send: (what: { text: string } | { image: string }) => Promise<void>,
): Promise<void> {
  if (info.menuItemId !== MENU_ID) return;
  if (!(await loadConnection())) {
    await chrome.runtime.openOptionsPage();
    return;
  }
  const what = whatToSend(info);
  if (what) await send(what);
}
