import { formatDisplayDate, parseStoredDate } from "@daysync/shared";
import { useMemo, useSyncExternalStore } from "react";
import { Link, useNavigate } from "react-router";
import { PageSpinner } from "../../../components/ui/spinner.tsx";
import { describeError } from "../../../lib/api-errors.ts";
import { Composer } from "../composer/composer.tsx";
import { MessageList } from "../messages/message-list.tsx";
import { useDayMessages } from "../messages/use-day-messages.ts";
import { useUnexpiredMessages } from "../messages/use-unexpired-messages.ts";
import { useCurrentUser, useDashboard } from "../shell/dashboard-context.ts";
import { useToday } from "./use-today.ts";
import { WelcomePanel } from "./welcome-panel.tsx";
import "./days.css";

interface DayViewProps {
  /** The day record, or null while the date has none (today before its first message). */
  dayId: string | null;
  /** Stored date, M/d/yyyy. */
  date: string;
  welcome?: boolean;
}

function weekdayOf(storedDate: string): string {
  const p = parseStoredDate(storedDate);
  if (!p) return "";
  return new Date(p.year, p.month - 1, p.day).toLocaleDateString(undefined, { weekday: "long" });
}

/** The message area of one day: its date, its messages with the waiting ones, and the composer. */
export function DayView({ dayId, date, welcome = false }: DayViewProps) {
  const user = useCurrentUser();
  const { outbox } = useDashboard();
  const today = useToday();
  const navigate = useNavigate();
  const query = useDayMessages(dayId);
  const stored = useUnexpiredMessages(query.data?.messages ?? [], user.max_message_duration);
  const entries = useSyncExternalStore(outbox.subscribe, outbox.getEntries);
  const pending = useMemo(() => {
    const confirmed = new Set(stored.map((m) => m.id));
    return entries.filter((e) => e.date === date && !confirmed.has(e.id));
  }, [entries, stored, date]);
  const isToday = date === today;
  const count = stored.length + pending.length;

  return (
    <div className="day-view">
      <header className="day-header">
        <div>
          <h1 className="day-title">{formatDisplayDate(date)}</h1>
          <p className="day-subtitle">
            {isToday ? <span className="day-pill">Today</span> : null}
            <span>{weekdayOf(date)}</span>
            <span aria-hidden="true">·</span>
            <span>
              {count} {count === 1 ? "message" : "messages"}
            </span>
          </p>
        </div>
      </header>
      {query.isPending && dayId ? (
        <div className="message-scroll">
          <PageSpinner label="Loading messages" />
        </div>
      ) : query.isError ? (
        <div className="message-scroll">
          <div className="message-empty" role="alert">
            <p>{describeError(query.error)}</p>
            <button type="button" className="btn btn-secondary btn-sm" onClick={() => void query.refetch()}>
              Try again
            </button>
          </div>
        </div>
      ) : (
        <MessageList
          viewKey={dayId ?? date}
          messages={stored}
          pending={pending}
          maxMinutes={user.max_message_duration}
          intro={welcome ? <WelcomePanel /> : null}
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
