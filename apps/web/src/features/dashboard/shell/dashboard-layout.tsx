import { TEXT, type User } from "@daysync/shared";
import { useQueryClient } from "@tanstack/react-query";
import { type ReactNode, useEffect, useMemo, useRef, useState } from "react";
import { Outlet, useLocation } from "react-router";
import { toast } from "react-toastify";
import { LiveConnection } from "../../../lib/live-connection.ts";
import { Outbox } from "../../../lib/outbox.ts";
import { queryKeys } from "../../../lib/query-keys.ts";
import { ConnectionStatus } from "./connection-status.tsx";
import { DashboardContext, type DashboardServices } from "./dashboard-context.ts";
import { Sidebar } from "./sidebar.tsx";
import { TopBar } from "./top-bar.tsx";
import { useMediaQuery } from "./use-media-query.ts";
import "./dashboard.css";

const NARROW = "(max-width: 899px)";
const SIDEBAR_ID = "dashboard-sidebar";

/** Owns this tab's live connection and outbox for the signed-in user. */
function useDashboardServices(user: User): DashboardServices {
  const queryClient = useQueryClient();
  const services = useMemo(() => {
    const outbox = new Outbox(user.id, queryClient);
    const live = new LiveConnection({
      userId: user.id,
      queryClient,
      onReady: () => void outbox.flush(),
      onSessionEnded: () => {
        toast.info("You were signed out on this device.");
        queryClient.setQueryData<User | null>(queryKeys.me, null);
      },
    });
    return { live, outbox };
  }, [user.id, queryClient]);
  useEffect(() => {
    services.outbox.start();
    services.live.start();
    return () => {
      services.live.stop();
      services.outbox.stop();
    };
  }, [services]);
  return useMemo(() => ({ user, ...services }), [user, services]);
}

interface DashboardLayoutProps {
  user: User;
  /** What other features add to the frame; app/dashboard-route.tsx assembles them. */
  sidebarLinks?: ReactNode;
  topBarActions?: ReactNode;
  /** Rendered inside the dashboard's context without a place on screen (notices, share outcomes). */
  children?: ReactNode;
}

export function DashboardLayout({ user, sidebarLinks, topBarActions, children }: DashboardLayoutProps) {
  const services = useDashboardServices(user);
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
    <DashboardContext.Provider value={services}>
      {children}
      <div className="dash" data-sidebar={expanded ? "open" : "closed"} data-layout={narrow ? "narrow" : "wide"}>
        <Sidebar id={SIDEBAR_ID} ref={sidebarRef} closed={!expanded} onClose={narrow ? closeDrawer : undefined} links={sidebarLinks} />
        {narrow && drawerOpen ? <div className="dash-backdrop" onClick={closeDrawer} aria-hidden="true" /> : null}
        <div className="dash-main">
          <TopBar ref={toggleRef} sidebarId={SIDEBAR_ID} expanded={expanded} onToggle={toggle} actions={topBarActions} />
          <ConnectionStatus />
          <main className="dash-content" id="main">
            <Outlet />
          </main>
          <footer className="dash-footer">
            <span>{TEXT.copyright}</span>
            <span>{TEXT.version}</span>
          </footer>
        </div>
      </div>
    </DashboardContext.Provider>
  );
}
