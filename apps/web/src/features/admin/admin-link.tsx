import { ADMIN_ROUTE } from "@daysync/shared";
import { NavLink } from "react-router";
import { useCurrentUser } from "../../lib/session-services.ts";

/** The sidebar's way to /admin, for admins only (the server refuses everyone else anyway). */
export function AdminLink() {
  const user = useCurrentUser();
  if (user.role !== "admin") return null;
  return (
    <NavLink to={ADMIN_ROUTE} className="sidebar-entry">
      <svg aria-hidden="true" width="18" height="18" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2">
        <path d="M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6z" />
      </svg>
      Admin
    </NavLink>
  );
}
