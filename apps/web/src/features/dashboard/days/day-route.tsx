import { Link, useParams } from "react-router";
import { PageSpinner } from "../../../components/ui/spinner.tsx";
import { ApiError } from "../../../lib/api-client.ts";
import { describeError } from "../../../lib/api-errors.ts";
import { useDayMessages } from "../messages/use-day-messages.ts";
import { DayView } from "./day-view.tsx";
import { useDays } from "./use-days.ts";

/** /dashboard/days/:dayId */
export function DayRoute() {
  const { dayId = "" } = useParams();
  const days = useDays();
  const messages = useDayMessages(dayId);
  const date = messages.data?.day.date ?? days.data?.find((d) => d.id === dayId)?.date;
  const missing = messages.error instanceof ApiError && (messages.error.status === 404 || messages.error.status === 400);
  if (missing || (!date && messages.isError)) {
    return (
      <div className="day-missing">
        <h1>This day is not available</h1>
        <p>{missing ? "It may belong to another account, or the link is wrong." : describeError(messages.error)}</p>
        <Link to="/dashboard" className="btn btn-primary">
          Open today
        </Link>
      </div>
    );
  }
  if (!date) return <PageSpinner label="Loading day" />;
  return <DayView key={dayId} dayId={dayId} date={date} />;
}
