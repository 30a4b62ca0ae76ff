import { formatStoredDate, formatStoredTime } from "@daysync/shared";
import { useSessionServices } from "../../../lib/session-services.ts";
import { newUuid } from "../../../lib/uuid.ts";

/** Puts a text message in the outbox with its client id and the device's date and time; the outbox sends it. */
export function useSendMessage(): (content: string) => void {
  const { outbox } = useSessionServices();
  return (content) => {
    const now = new Date();
    outbox.enqueue({ id: newUuid(), content, date: formatStoredDate(now), time: formatStoredTime(now) });
  };
}
