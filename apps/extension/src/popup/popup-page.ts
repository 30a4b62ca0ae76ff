/**
 * The toolbar popup: today's messages opened on this browser, each text with Copy and each file with Download, and a
 * message box whose text goes through the background's queue (so it waits offline like the menu's).
 */
import "../../../web/src/lib/zod-jitless.ts";
import { describeError } from "../../../web/src/lib/api-errors.ts";
import { copyToClipboard } from "../../../web/src/lib/copy-to-clipboard.ts";
import { DeviceKeys, heldEpochsOf } from "../../../web/src/lib/sealing/device-keys.ts";
import { openWholeFile } from "../../../web/src/lib/sealing/sealed-files.ts";
import { type Connection, connectApiAs, loadConnection } from "../lib/connection.ts";
import { element, say } from "../lib/dom.ts";
import { notifyBackground, pageMessageSchema, sendAnswerSchema } from "../lib/messages.ts";
import { POPUP_TEXT } from "../lib/text.ts";
import { type ShownMessage, todayMessages } from "./today-messages.ts";

const status = element("status", HTMLElement);
const list = element("messages", HTMLUListElement);
const compose = element("compose", HTMLFormElement);
const box = element("message", HTMLTextAreaElement);
const composeError = element("compose-error", HTMLElement);

function button(label: string, onClick: () => Promise<void>): HTMLButtonElement {
  const made = document.createElement("button");
  made.type = "button";
  made.textContent = label;
  made.addEventListener("click", () => void onClick());
  return made;
}

function itemOf(message: ShownMessage, session: { connection: Connection; keys: DeviceKeys }): HTMLLIElement {
  const item = document.createElement("li");
  const meta = document.createElement("p");
  meta.className = "meta";
  meta.textContent = message.from ? `${message.time} · ${message.from}` : message.time;
  const body = document.createElement("p");
  body.className = "text";
  body.id = `message-${message.id}`;
  item.append(meta, body);
  if (message.kind === "text") {
    body.textContent = message.text;
    const copy = button(POPUP_TEXT.copy, async () =>
      say(status, (await copyToClipboard(message.text)) ? POPUP_TEXT.copied : POPUP_TEXT.copyFailed),
    );
    copy.setAttribute("aria-describedby", body.id);
    item.append(copy);
  } else if (message.kind === "file") {
    body.textContent = message.name;
    const download = button(POPUP_TEXT.download, async () => {
      try {
        const epochs = heldEpochsOf(session.keys.getStatus()) ?? new Map();
        const { blob, name } = await openWholeFile({ userId: session.connection.user_id, epochs }, message.file);
        const link = document.createElement("a");
        link.href = URL.createObjectURL(blob);
        link.download = name;
        link.click();
        setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
      } catch (error) {
        say(status, describeError(error));
      }
    });
    download.setAttribute("aria-describedby", body.id);
    item.append(download);
  } else {
    body.textContent = message.text;
  }
  return item;
}

async function show(session: { connection: Connection; keys: DeviceKeys }): Promise<void> {
  try {
    const { shown, offline } = await todayMessages(session.connection.user_id, session.keys);
    list.replaceChildren(...shown.map((message) => itemOf(message, session)));
    say(status, offline ? POPUP_TEXT.offline : shown.length ? undefined : POPUP_TEXT.noneToday);
    void notifyBackground({ type: "seen" });
  } catch (error) {
    say(status, describeError(error));
  }
}

async function start(): Promise<void> {
  const connection = await loadConnection();
  if (!connection) {
    element("not-paired", HTMLElement).hidden = false;
    element("set-up", HTMLButtonElement).addEventListener("click", () => void chrome.runtime.openOptionsPage().then(() => window.close()));
    return;
  }
  connectApiAs(connection);
  const keys = new DeviceKeys(connection.user_id);
  await keys.refresh();
  const session = { connection, keys };
  compose.hidden = false;
  chrome.runtime.onMessage.addListener((message) => {
    if (pageMessageSchema.safeParse(message).success) void show(session);
    return undefined;
  });
  await show(session);
}

async function send(): Promise<void> {
  const answer = sendAnswerSchema.safeParse(await notifyBackground({ type: "send", content: box.value }));
  if (!answer.success) return say(composeError, POPUP_TEXT.notSent);
  if (!answer.data.queued) return say(composeError, answer.data.reason);
  say(composeError, undefined);
  box.value = "";
}

compose.addEventListener("submit", (event) => {
  event.preventDefault();
  void send();
});
box.addEventListener("keydown", (event) => {
  if (event.key !== "Enter" || event.shiftKey || event.isComposing) return;
  event.preventDefault();
  void send();
});

void start();
