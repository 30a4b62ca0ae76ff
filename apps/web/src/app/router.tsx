import { createBrowserRouter } from "react-router";
import { PageSpinner } from "../components/ui/spinner.tsx";
import { ErrorScreen, NotFound } from "./error-screen.tsx";

/** Routes of product.md section 2. Each page is split out so the public pages load only what they need. */
export const router = createBrowserRouter([
  {
    path: "/",
    errorElement: <ErrorScreen />,
    hydrateFallbackElement: <PageSpinner />,
    children: [
      { index: true, lazy: async () => ({ Component: (await import("../features/site/landing-page.tsx")).LandingPage }) },
      { path: "landing", lazy: async () => ({ Component: (await import("../features/site/landing-page.tsx")).LandingPage }) },
      { path: "home", lazy: async () => ({ Component: (await import("../features/site/home-page.tsx")).HomePage }) },
      {
        lazy: async () => ({ Component: (await import("./app-shell-route.tsx")).AppShellRoute }),
        children: [
          {
            lazy: async () => ({ Component: (await import("../features/auth/session-routes.tsx")).GuestOnlyRoute }),
            children: [
              { path: "login", lazy: async () => ({ Component: (await import("../features/auth/login-page.tsx")).LoginPage }) },
              {
                path: "register",
                lazy: async () => ({ Component: (await import("../features/auth/register-page.tsx")).RegisterPage }),
              },
            ],
          },
          {
            path: "dashboard",
            lazy: async () => ({ Component: (await import("./dashboard-route.tsx")).DashboardRoute }),
            children: [
              {
                index: true,
                lazy: async () => ({ Component: (await import("../features/dashboard/days/today-route.tsx")).TodayRoute }),
              },
              {
                path: "home",
                lazy: async () => ({ Component: (await import("../features/dashboard/days/today-route.tsx")).HomeRoute }),
              },
              {
                path: "days/:dayId",
                lazy: async () => ({ Component: (await import("../features/dashboard/days/day-route.tsx")).DayRoute }),
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
          // The only route a pairing code opens; a signed-in device approves or denies there.
          { path: "pair/:code?", lazy: async () => ({ Component: (await import("./pair-route.tsx")).PairRoute }) },
        ],
      },
      { path: "*", Component: NotFound },
    ],
  },
]);
