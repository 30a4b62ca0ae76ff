import { ADD_DEVICE_ROUTE } from "@daysync/shared";
import { Link } from "react-router";
import { QrIcon } from "../../../components/ui/icons.tsx";
import { useCurrentUser } from "../../../lib/session-services.ts";

/** The avatar letter and name, which open the Plan page, and Add a device beside them. */
export function UserPanel() {
  const user = useCurrentUser();
  const initial = (user.name.trim()[0] ?? "?").toUpperCase();
  return (
    <div className="user-panel-row">
      <Link to="/dashboard/plan" className="user-panel" title="Your plan">
        <span className="avatar" aria-hidden="true">
          {initial}
        </span>
        <span className="user-panel-text">
          <span className="user-name">{user.name}</span>
          <span className="user-plan">{user.title_subscription}</span>
        </span>
      </Link>
      <Link to={ADD_DEVICE_ROUTE} className="user-panel-add" aria-label="Add a device" title="Add a device">
        <QrIcon size={20} />
      </Link>
    </div>
  );
}
