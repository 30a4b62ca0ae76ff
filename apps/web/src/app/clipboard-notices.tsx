/**
 * The phone's side of the clipboard both ways, within what browsers allow (no background clipboard): a text that
 * arrives from another of the user's devices while this tab is in front is one tap from the clipboard (the toast's
 * Copy), and a notification's Copy action opens the app at `?copy=<message id>`, which copies that message.
 */
import { API, COPY_MESSAGE_PARAM, type Message, responseSchemas, TEXT } from "@daysync/shared";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { useSearchParams } from "react-router";
import { type Id, toast } from "react-toastify";
import { devicesQueryOptions } from "../features/devices/api/devices.ts";
import { api } from "../lib/api-client.ts";
import { copyToClipboard } from "../lib/copy-to-clipboard.ts";
import type { LiveConnection } from "../lib/live-connection.ts";
import { shownText } from "../lib/sealing/opened-messages.ts";
import { type SessionServices, useSessionServices } from "../lib/session-services.ts";

const PREVIEW_LENGTH = 80;
const preview = (text: string) => (text.length > PREVIEW_LENGTH ? `${text.slice(0, PREVIEW_LENGTH - 1)}…` : text);

async function copyAndSay(toastId: Id, text: string) {
  const copied = await copyToClipboard(text);
  toast.update(toastId, {
    render: copied ? TEXT.copied : TEXT.copyFailed,
    type: copied ? "success" : "error",
    autoClose: 3000,
  });
}

function CopyToast({ heading, text, onCopy }: { heading: string; text: string; onCopy: () => void }) {
  return (
    <div className="copy-toast">
      <p className="copy-toast-heading">{heading}</p>
      <p className="copy-toast-text">{preview(text)}</p>
      <button type="button" className="btn btn-primary btn-sm" onClick={onCopy}>
        Copy
      </button>
    </div>
  );
}

/** Offers a text in a toast with a one-tap Copy (a tap is what every browser accepts for writing the clipboard). */
function offerCopy(message: Message, text: string, heading: string) {
  const toastId = `copy-${message.id}`;
  toast(<CopyToast heading={heading} text={text} onCopy={() => void copyAndSay(toastId, text)} />, {
    toastId,
    closeOnClick: false,
  });
}

/**
 * One toast per text that arrives live from another of the user's devices, and only while this tab is visible
 * and focused: the others are in the day's list, and a notification covers a tab in the background.
 */
export function useIncomingTextToasts(live: LiveConnection): void {
  const queryClient = useQueryClient();
  const services = useSessionServices();
  useEffect(
    () =>
      live.onEvent((event, isLive) => {
        if (!isLive || event.kind !== "message.created" || event.message.type !== "text") return;
        if (document.visibilityState !== "visible" || !document.hasFocus()) return;
        const { message } = event;
        void queryClient
          .ensureQueryData(devicesQueryOptions)
          .then((devices) => devices.find((d) => d.current)?.id ?? null)
          .catch(() => null)
          .then(async (current) => {
            if (current !== null && message.device?.id === current) return;
            const shown = await shownText(services, message);
            if (shown.kind === "text") offerCopy(message, shown.text, `New text from ${message.device?.name ?? "another device"}`);
          });
      }),
    [live, queryClient, services],
  );
}

/**
 * `?copy=<message id>` (a notification's Copy action): copies that message of the user's, then drops the parameter.
 * Where the browser refuses a copy without a tap (the window was not focused yet), the toast's Copy does it.
 */
export function useCopyRequest(): void {
  const services = useSessionServices();
  const [params, setParams] = useSearchParams();
  const id = params.get(COPY_MESSAGE_PARAM);
  const handled = useRef<string | null>(null);
  useEffect(() => {
    if (!id || handled.current === id) return;
    handled.current = id;
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.delete(COPY_MESSAGE_PARAM);
        return next;
      },
      { replace: true },
    );
    void copyMessage(services, id);
  }, [id, setParams, services]);
}

async function copyMessage(services: SessionServices, id: string) {
  let message: Message;
  try {
    // The server answers only with the user's own messages: another's id is "not found".
    message = (await api.get(API.message(id), responseSchemas.message)).message;
  } catch {
    toast.error("This message is no longer there: it expired or was deleted.");
    return;
  }
  if (message.type !== "text") return;
  const shown = await shownText(services, message);
  if (shown.kind === "notice") toast.error(shown.text);
  else if (await copyToClipboard(shown.text)) toast.success(TEXT.copied, { autoClose: 3000 });
  else offerCopy(message, shown.text, "Tap Copy to put this text in the clipboard");
}
