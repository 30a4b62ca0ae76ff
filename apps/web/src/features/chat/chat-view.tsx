import { formatDisplayDate, type MemberChange, parseStoredDate } from "@daysync/shared";
import { type ReactNode, useMemo, useSyncExternalStore } from "react";
import { Link, useNavigate } from "react-router";
import { useSessionServices } from "../../lib/session-services.ts";
import { useToday } from "../../lib/use-today.ts";
import { useOpenedDayMessages } from "./api/day-messages.ts";
import type { ChatSpace } from "./chat-space.ts";
import { ClearDayButton } from "./clear-day-button.tsx";
import { Composer } from "./composer/composer.tsx";
import { DiscussionChat } from "./discussion-chat.tsx";
import { MessageList } from "./messages/message-list.tsx";
import { MessagesLoadError, MessagesLoading } from "./messages/messages-unavailable.tsx";
import { useDayGapLines } from "./messages/use-day-gaps.ts";
import { useUnexpiredMessages } from "./messages/use-unexpired-messages.ts";
import "./chat.css";

interface ChatViewProps {
  space: ChatSpace;
  /** Shown above the messages, e.g. the first-run welcome. */
  intro?: ReactNode;
  /** A discussion's header (title, time left, sharing, members), assembled in app/. */
  header?: ReactNode;
  /** A discussion's members coming and going, shown as lines between its messages. */
  memberChanges?: readonly MemberChange[];
}

/** One chat, wherever a route puts it: the messages of a space with the waiting ones, and the composer. */
export function ChatView({ space, intro, header, memberChanges }: ChatViewProps) {
  switch (space.kind) {
    case "day":
      return <DayChat dayId={space.dayId} date={space.date} intro={intro} />;
    case "discussion":
      return <DiscussionChat id={space.id} header={header} memberChanges={memberChanges} />;
  }
}

function weekdayOf(storedDate: string): string {
  const p = parseStoredDate(storedDate);
  if (!p) return "";
  return new Date(p.year, p.month - 1, p.day).toLocaleDateString(undefined, { weekday: "long" });
}

/** A private day: its date, its messages with the waiting ones, and the composer, which writes to today. */
function DayChat({ dayId, date, intro }: { dayId: string | null; date: string; intro: ReactNode }) {
  const { user, outbox } = useSessionServices();
  const today = useToday();
  const navigate = useNavigate();
  const { query, messages } = useOpenedDayMessages(dayId);
  const unexpired = useUnexpiredMessages(messages, user.max_message_duration);
  const deletes = useSyncExternalStore(outbox.subscribe, outbox.getDeletes);
  // Deleted here, and waiting for Undo's time or the connection: gone from view already.
  const stored = useMemo(() => {
    if (deletes.length === 0) return unexpired;
    const deleted = new Set(deletes.map((d) => d.id));
    return unexpired.filter((m) => !deleted.has(m.id));
  }, [unexpired, deletes]);
  const storedIds = useMemo(() => stored.map((m) => m.id), [stored]);
  const gapLines = useDayGapLines(date, unexpired);
  const entries = useSyncExternalStore(outbox.subscribe, outbox.getEntries);
  const pending = useMemo(() => {
    const confirmed = new Set(stored.map((m) => m.id));
    return entries.filter((e) => !e.discussionId && e.date === date && !confirmed.has(e.id));
  }, [entries, stored, date]);
  const isToday = date === today;
  const count = stored.length + pending.length;

  return (
    <div className="day-view">
      <header className="day-header">
        <div className="day-heading">
          <h1 className="day-title">{formatDisplayDate(date)}</h1>
          <p className="day-subtitle">
            {isToday ? <span className="day-pill">Today</span> : null}
            <span className="day-facts">
              {weekdayOf(date)} <span aria-hidden="true">·</span>{" "}
              <span>
                {count} {count === 1 ? "message" : "messages"}
              </span>
            </span>
          </p>
        </div>
        {dayId && stored.length > 0 ? <ClearDayButton dayId={dayId} date={date} messageIds={storedIds} /> : null}
      </header>
      {query.isPending && dayId ? (
        <MessagesLoading offline={query.fetchStatus === "paused"} />
      ) : query.isError && !query.data ? (
        <MessagesLoadError error={query.error} onRetry={() => void query.refetch()} />
      ) : (
        <MessageList
          viewKey={dayId ?? date}
          messages={stored}
          pending={pending}
          maxMinutes={user.max_message_duration}
          intro={intro}
          lines={gapLines}
          emptyNote={isToday ? undefined : <OlderDayNote />}
        />
      )}
      <Composer onSent={isToday ? undefined : () => void navigate("/dashboard")} />
    </div>
  );
}

/** What is typed on an older day is sent to today, so its empty state says so rather than invite a note here. */
function OlderDayNote() {
  return (
    <>
      <span>New messages go to today.</span>
      <Link to="/dashboard" className="btn btn-secondary btn-sm">
        Open today
      </Link>
    </>
  );
}
