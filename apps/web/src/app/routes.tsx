import { lazy } from "react";
import type { RouteObject } from "react-router";
import { PageSpinner } from "../components/ui/spinner.tsx";
import { LoginPage } from "../features/auth/login-page.tsx";
import { RegisterPage } from "../features/auth/register-page.tsx";
import { GuestOnlyRoute } from "../features/auth/session-routes.tsx";
import { PendingShareNotice } from "../features/share/pending-share-notice.tsx";
import { AppShellRoute } from "./app-shell-route.tsx";
import { ErrorScreen, NotFound } from "./error-screen.tsx";

/** The QR panel and its libraries load when it is opened, not with the sign-in form. */
const ConnectedDevicePanel = lazy(async () => ({ default: (await import("./connected-device-panel.tsx")).ConnectedDevicePanel }));

/**
 * Routes of product.md section 2. Public pages normally render without the router (see main.tsx).
 * The sign-in pages come with the router chunk and are also rendered to HTML at build time
 * (prerender.tsx); the dashboard and the rest load when visited.
 */
export const routes: RouteObject[] = [
  {
    path: "/",
    errorElement: <ErrorScreen />,
    hydrateFallbackElement: <PageSpinner />,
    children: [
      { index: true, lazy: async () => ({ Component: (await import("../features/site/landing-page.tsx")).LandingPage }) },
      { path: "landing", lazy: async () => ({ Component: (await import("../features/site/landing-page.tsx")).LandingPage }) },
      { path: "home", lazy: async () => ({ Component: (await import("../features/site/home-page.tsx")).HomePage }) },
      {
        Component: AppShellRoute,
        children: [
          {
            Component: GuestOnlyRoute,
            children: [
              {
                path: "login",
                element: (
                  <>
                    <PendingShareNotice />
                    <LoginPage ConnectedDevicePanel={ConnectedDevicePanel} />
                  </>
                ),
              },
              { path: "register", Component: RegisterPage },
            ],
          },
          {
            // The signed-in frame (sidebar, live connection, outbox, uploads) around the days and the discussions.
            lazy: async () => ({ Component: (await import("./dashboard-route.tsx")).DashboardRoute }),
            children: [
              {
                path: "dashboard",
                children: [
                  {
                    index: true,
                    lazy: async () => ({ Component: (await import("./day-routes.tsx")).TodayRoute }),
                  },
                  {
                    path: "home",
                    lazy: async () => ({ Component: (await import("./day-routes.tsx")).HomeRoute }),
                  },
                  {
                    path: "days/:dayId",
                    lazy: async () => ({ Component: (await import("./day-routes.tsx")).DayRoute }),
                  },
                  {
                    path: "plan",
                    lazy: async () => ({ Component: (await import("../features/dashboard/plan/plan-page.tsx")).PlanPage }),
                  },
                  {
                    path: "devices",
                    lazy: async () => ({ Component: (await import("../features/devices/devices-page.tsx")).DevicesPage }),
                  },
                ],
              },
              // Discussions (issue 13). Their join link opens a screen to pick a name; it never signs a device in.
              {
                path: "discussions/new",
                lazy: async () => ({ Component: (await import("./discussion-routes.tsx")).NewDiscussionRoute }),
              },
              {
                path: "discussions/join/:publicId",
                lazy: async () => ({ Component: (await import("./discussion-routes.tsx")).JoinDiscussionRoute }),
              },
              {
                path: "discussions/:id",
                lazy: async () => ({ Component: (await import("./discussion-routes.tsx")).DiscussionRoute }),
              },
            ],
          },
          // Admins only (issue 30); everyone else gets the not-found screen.
          {
            lazy: async () => ({ Component: (await import("./admin-route.tsx")).AdminRoute }),
            children: [{ path: "admin", lazy: async () => ({ Component: (await import("../features/admin/admin-page.tsx")).AdminPage }) }],
          },
          // The page of a one-time reset link an admin handed over; the token is in the fragment.
          {
            path: "reset-password",
            lazy: async () => ({ Component: (await import("../features/auth/reset-password-page.tsx")).ResetPasswordPage }),
          },
          // Add a device: the signed-in device shows a code there (decision 013).
          { path: "pair/add", lazy: async () => ({ Component: (await import("./add-device-route.tsx")).AddDeviceRoute }) },
          // The only route an Add a device code opens, on the new device; it waits for the approval.
          { path: "pair/join/:code?", lazy: async () => ({ Component: (await import("./join-route.tsx")).JoinRoute }) },
          // The only route a pairing code opens; a signed-in device approves or denies there.
          { path: "pair/:code?", lazy: async () => ({ Component: (await import("./pair-route.tsx")).PairRoute }) },
        ],
      },
      { path: "*", Component: NotFound },
    ],
  },
];
