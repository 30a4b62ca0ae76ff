import { Link } from "react-router";
import "./days.css";

/** A day link that leads nowhere: another account's day, a wrong id, or the day could not be read. */
export function DayMissing({ reason }: { reason: string }) {
  return (
    <div className="day-missing">
      <h1>This day is not available</h1>
      <p>{reason}</p>
      <Link to="/dashboard" className="btn btn-primary">
        Open today
      </Link>
    </div>
  );
}
