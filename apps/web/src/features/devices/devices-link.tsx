import { NavLink } from "react-router";
import { DevicesIcon } from "../../components/ui/icons.tsx";
import "./devices-link.css";

/** The sidebar's way to the Devices page. */
export function DevicesLink() {
  return (
    <NavLink to="/dashboard/devices" className="sidebar-devices">
      <DevicesIcon size={18} />
      Devices
    </NavLink>
  );
}
