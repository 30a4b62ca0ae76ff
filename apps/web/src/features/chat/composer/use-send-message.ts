import { formatStoredDate, formatStoredTime } from "@daysync/shared";
import { useSessionServices } from "../../../lib/session-services.ts";
import { newUuid } from "../../../lib/uuid.ts";

/**
 * Puts a text message in the outbox with its client id and the device's date and time; the outbox sends it to
 * the discussion, or without one to the user's own day.
 */
export function useSendMessage(discussionId?: string): (content: string) => void {
  const { outbox } = useSessionServices();
  return (content) => {
    const now = new Date();
    const message = { id: newUuid(), content, date: formatStoredDate(now), time: formatStoredTime(now) };
    outbox.enqueue(discussionId ? { ...message, discussionId } : message);
  };
}
