import { TEXT } from "@daysync/shared";
import { type ReactNode, type Ref, useState } from "react";
import { Link, useNavigate } from "react-router";
import { BrandMark } from "../../../components/ui/brand-mark.tsx";
import { CloseIcon, PlusIcon } from "../../../components/ui/icons.tsx";
import { DayList } from "../days/day-list.tsx";
import { SearchBox } from "../search/search-box.tsx";
import { LogoutButton } from "./logout-button.tsx";
import { UserPanel } from "./user-panel.tsx";

interface SidebarProps {
  id: string;
  closed: boolean;
  /** Set in the phone drawer, which covers the menu button and so needs its own way out. */
  onClose?: () => void;
  /** Links to other parts of the app, above the logout button (assembled in app/). */
  links?: ReactNode;
  /** Sections under 'Private messages', such as 'Discussions' (assembled in app/); hidden with it while searching. */
  sections?: ReactNode;
  ref?: Ref<HTMLElement>;
}

export function Sidebar({ id, closed, onClose, links, sections, ref }: SidebarProps) {
  const navigate = useNavigate();
  const [searching, setSearching] = useState(false);

  return (
    <aside id={id} ref={ref} className="sidebar" aria-label="Sidebar" tabIndex={-1} inert={closed}>
      <div className="sidebar-top">
        <Link to="/dashboard" className="sidebar-brand">
          <BrandMark size={36} />
          {TEXT.productName}
        </Link>
        {onClose ? (
          <button type="button" className="sidebar-close" aria-label="Close menu" onClick={onClose}>
            <CloseIcon size={20} />
          </button>
        ) : null}
      </div>
      <UserPanel />
      <SearchBox onActiveChange={setSearching} />
      {searching ? null : (
        <nav className="sidebar-nav" aria-labelledby={`${id}-private`}>
          <div className="sidebar-section-head">
            <h2 className="sidebar-heading" id={`${id}-private`}>
              {TEXT.privateMessages}
            </h2>
            <button type="button" className="sidebar-today" onClick={() => void navigate("/dashboard", { state: { compose: true } })}>
              <PlusIcon size={16} />
              {TEXT.today}
            </button>
          </div>
          <DayList />
        </nav>
      )}
      {searching ? null : sections}
      {links}
      <LogoutButton />
    </aside>
  );
}
