import { NavLink } from "react-router";
import { DevicesIcon } from "../../components/ui/icons.tsx";

/** The sidebar's way to the Devices page, styled as one of its foot entries (dashboard.css). */
export function DevicesLink() {
  return (
    <NavLink to="/dashboard/devices" className="sidebar-entry">
      <DevicesIcon size={18} />
      Devices
    </NavLink>
  );
}
