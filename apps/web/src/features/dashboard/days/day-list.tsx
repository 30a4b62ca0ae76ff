import { formatDisplayDate } from "@daysync/shared";
import { Link, useMatch } from "react-router";
import { CalendarIcon } from "../../../components/ui/icons.tsx";
import { describeError } from "../../../lib/api-errors.ts";
import type { Shown } from "../../../lib/shown.ts";
import { useToday } from "../../../lib/use-today.ts";
import { useShownDays } from "../api/days.ts";

export function DayList() {
  const { query: days, days: shownDays } = useShownDays();
  const today = useToday();
  const dayMatch = useMatch("/dashboard/days/:dayId");
  const indexMatch = useMatch("/dashboard");
  const homeMatch = useMatch("/dashboard/home");
  const onTodayPage = indexMatch !== null || homeMatch !== null;
  const activeId = dayMatch?.params.dayId ?? (onTodayPage ? days.data?.find((d) => d.date === today)?.id : undefined);

  if (days.isPending) {
    return (
      <ul className="sidebar-list day-list" aria-busy="true" aria-label="Loading days">
        {[0, 1, 2].map((i) => (
          <li key={i} className="day-skeleton" />
        ))}
      </ul>
    );
  }
  if (days.isError) {
    return (
      <div className="sidebar-note">
        <p>{describeError(days.error)}</p>
        <button type="button" className="sidebar-link-button" onClick={() => void days.refetch()}>
          Try again
        </button>
      </div>
    );
  }
  if (days.data.length === 0) {
    return <p className="sidebar-note">No days yet. Your first message starts one.</p>;
  }
  return (
    <ul className="sidebar-list day-list">
      {shownDays.map((day) => {
        const active = day.id === activeId;
        return (
          <li key={day.id}>
            <Link to={`/dashboard/days/${day.id}`} className="day-link" aria-current={active ? "page" : undefined}>
              <CalendarIcon size={16} />
              <span className="day-link-body">
                <span className="day-link-top">
                  <span className="day-date">{formatDisplayDate(day.date)}</span>
                  {day.date === today ? <span className="day-today">Today</span> : null}
                  <span className="day-time">{day.last_message_time}</span>
                </span>
                {day.last_message ? <DayPreview preview={day.preview} /> : null}
              </span>
            </Link>
          </li>
        );
      })}
    </ul>
  );
}

/** The day's newest message, as opened on this device when it was sealed. */
function DayPreview({ preview }: { preview: Shown }) {
  if (preview.kind === "opening") return null;
  return (
    <span className="day-preview" data-notice={preview.kind === "notice" || undefined}>
      {preview.text}
    </span>
  );
}
