import { Link } from "react-router";
import { useCurrentUser } from "./dashboard-context.ts";

/** The avatar letter and name; opens the Plan page. */
export function UserPanel() {
  const user = useCurrentUser();
  const initial = (user.name.trim()[0] ?? "?").toUpperCase();
  return (
    <Link to="/dashboard/plan" className="user-panel" title="Your plan">
      <span className="avatar" aria-hidden="true">
        {initial}
      </span>
      <span className="user-panel-text">
        <span className="user-name">{user.name}</span>
        <span className="user-plan">{user.title_subscription}</span>
      </span>
    </Link>
  );
}
