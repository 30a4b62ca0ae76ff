import { SETTINGS_ROUTE } from "@daysync/shared";
import { NavLink } from "react-router";
import { SettingsIcon } from "../../components/ui/icons.tsx";

/** The sidebar's way to the Settings page, one of its foot entries (dashboard.css). */
export function SettingsLink() {
  return (
    <NavLink to={SETTINGS_ROUTE} className="sidebar-entry">
      <SettingsIcon size={18} />
      Settings
    </NavLink>
  );
}
