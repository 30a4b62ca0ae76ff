/** How many messages came from the other devices since the popup last showed them, on the toolbar icon. */
const KEY = "unread";

async function readUnread(): Promise<number> {
  const value = (await chrome.storage.local.get(KEY))[KEY];
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : 0;
}

async function show(count: number): Promise<void> {
  await chrome.storage.local.set({ [KEY]: count });
  await chrome.action.setBadgeText({ text: count === 0 ? "" : count > 99 ? "99+" : String(count) });
}

export async function addUnread(): Promise<void> {
  await chrome.action.setBadgeBackgroundColor({ color: "#2563eb" });
  await show((await readUnread()) + 1);
}

export const clearUnread = (): Promise<void> => show(0);
