import { TEXT } from "@daysync/shared";
import { type ReactNode, useEffect, useRef, useState } from "react";
import { Outlet, useLocation } from "react-router";
import { OwnerCopyright } from "../../../components/ui/owner-copyright.tsx";
import { MESSAGES_ID, useMessagesShown } from "../../../lib/chat-focus.ts";
import { ConnectionStatus } from "./connection-status.tsx";
import { Sidebar } from "./sidebar.tsx";
import { TopBar } from "./top-bar.tsx";
import { useMediaQuery } from "./use-media-query.ts";
import "./dashboard.css";
import "./dashboard-main.css";

const NARROW = "(max-width: 899px)";
const SIDEBAR_ID = "dashboard-sidebar";

interface DashboardLayoutProps {
  /** What other features add to the frame; app/dashboard-route.tsx assembles them. */
  sidebarLinks?: ReactNode;
  /** Sidebar sections under 'Private messages' (the discussions). */
  sidebarSections?: ReactNode;
  topBarActions?: ReactNode;
  /** A prompt above the page, under the top bar (naming a device just signed in). */
  notice?: ReactNode;
  /** Rendered without a place on screen (notices, share outcomes). */
  children?: ReactNode;
}

/** The signed-in frame: sidebar, top bar and the page. Needs app/session-services-provider.tsx around it. */
export function DashboardLayout({ sidebarLinks, sidebarSections, topBarActions, notice, children }: DashboardLayoutProps) {
  const narrow = useMediaQuery(NARROW);
  const [drawerOpen, setDrawerOpen] = useState(false);
  const [collapsed, setCollapsed] = useState(false);
  const toggleRef = useRef<HTMLButtonElement>(null);
  const sidebarRef = useRef<HTMLElement>(null);
  const location = useLocation();
  const expanded = narrow ? drawerOpen : !collapsed;

  // A choice made in the phone drawer closes it, so the chosen page is visible.
  const [seenLocation, setSeenLocation] = useState(location.key);
  if (seenLocation !== location.key) {
    setSeenLocation(location.key);
    setDrawerOpen(false);
  }

  useEffect(() => {
    if (!narrow || !drawerOpen) return;
    sidebarRef.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      setDrawerOpen(false);
      toggleRef.current?.focus();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [narrow, drawerOpen]);

  const closeDrawer = () => {
    setDrawerOpen(false);
    toggleRef.current?.focus();
  };
  const toggle = () => (narrow ? setDrawerOpen((open) => !open) : setCollapsed((c) => !c));

  return (
    <>
      {children}
      <SkipToMessages />
      <div className="dash" data-sidebar={expanded ? "open" : "closed"} data-layout={narrow ? "narrow" : "wide"}>
        <Sidebar
          id={SIDEBAR_ID}
          ref={sidebarRef}
          closed={!expanded}
          onClose={narrow ? closeDrawer : undefined}
          links={sidebarLinks}
          sections={sidebarSections}
        />
        {narrow && drawerOpen ? <div className="dash-backdrop" onClick={closeDrawer} aria-hidden="true" /> : null}
        <div className="dash-main">
          <TopBar ref={toggleRef} sidebarId={SIDEBAR_ID} expanded={expanded} onToggle={toggle} actions={topBarActions} />
          <ConnectionStatus />
          {notice}
          <main className="dash-content" id="main">
            <Outlet />
          </main>
          <footer className="dash-footer">
            <OwnerCopyright />
            <span>{TEXT.version}</span>
          </footer>
        </div>
      </div>
    </>
  );
}

/** First on the page while a chat is open: past the sidebar and top bar to the messages. */
function SkipToMessages() {
  const shown = useMessagesShown();
  if (!shown) return null;
  return (
    <a
      className="dash-skip-link"
      href={`#${MESSAGES_ID}`}
      onClick={(e) => {
        e.preventDefault();
        document.getElementById(MESSAGES_ID)?.focus();
      }}
    >
      Skip to messages
    </a>
  );
}
