/** A system notification from the extension, with its icon. */
export function notify(id: string, title: string, message: string, buttons: { title: string }[] = []): void {
  chrome.notifications.create(id, {
    type: "basic",
    iconUrl: chrome.runtime.getURL("icon-192.png"),
    title,
    message,
    ...(buttons.length ? { buttons } : {}),
  });
}
