import { APP_ROUTES } from "@daysync/shared";
import { type ComponentType, lazy } from "react";
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

/** A route's loader for a page that needs a signed-in device: the page and SignedInPageRoute load when visited. */
function signedInPage(loadPage: () => Promise<ComponentType<{ userId: string }>>) {
  return async () => {
    const [{ SignedInPageRoute }, Page] = await Promise.all([import("./signed-in-page-route.tsx"), loadPage()]);
    return { Component: () => <SignedInPageRoute page={Page} /> };
  };
}

/**
 * Routes of product.md section 2. Public pages normally render without the router (see main.tsx).
 * The sign-in pages come with the router chunk and are also rendered to HTML at build time
 * (prerender.tsx); the dashboard and the rest load when visited. Every path is one of APP_ROUTES (packages/shared),
 * the list the server also knows: a page request outside it is answered 404, with this app's error screen.
 */
export const routes: RouteObject[] = [
  {
    path: APP_ROUTES.landing,
    errorElement: <ErrorScreen />,
    hydrateFallbackElement: <PageSpinner />,
    children: [
      { index: true, lazy: async () => ({ Component: (await import("../features/site/landing-page.tsx")).LandingPage }) },
      { path: APP_ROUTES.landingPage, lazy: async () => ({ Component: (await import("../features/site/landing-page.tsx")).LandingPage }) },
      { path: APP_ROUTES.home, lazy: async () => ({ Component: (await import("../features/site/home-page.tsx")).HomePage }) },
      { path: APP_ROUTES.privacy, lazy: async () => ({ Component: (await import("../features/site/privacy-page.tsx")).PrivacyPage }) },
      {
        Component: AppShellRoute,
        children: [
          {
            Component: GuestOnlyRoute,
            children: [
              {
                path: APP_ROUTES.login,
                element: (
                  <>
                    <PendingShareNotice />
                    <LoginPage ConnectedDevicePanel={ConnectedDevicePanel} />
                  </>
                ),
              },
              { path: APP_ROUTES.register, Component: RegisterPage },
              // /login's "Forgot password?" and "Email me a sign-in link" (issue 26; shown only when the server sends mail).
              {
                path: APP_ROUTES.forgotPassword,
                lazy: async () => ({ Component: (await import("../features/auth/email-link-request.tsx")).ForgotPasswordPage }),
              },
              {
                path: APP_ROUTES.emailSignIn,
                lazy: async () => ({ Component: (await import("../features/auth/email-link-request.tsx")).EmailSignInPage }),
              },
            ],
          },
          {
            // The signed-in frame (sidebar, live connection, outbox, uploads) around the days and the discussions.
            lazy: async () => ({ Component: (await import("./dashboard-route.tsx")).DashboardRoute }),
            children: [
              {
                path: APP_ROUTES.dashboard,
                children: [
                  {
                    index: true,
                    lazy: async () => ({ Component: (await import("./day-routes.tsx")).TodayRoute }),
                  },
                  {
                    path: APP_ROUTES.dashboardHome,
                    lazy: async () => ({ Component: (await import("./day-routes.tsx")).HomeRoute }),
                  },
                  {
                    path: APP_ROUTES.day,
                    lazy: async () => ({ Component: (await import("./day-routes.tsx")).DayRoute }),
                  },
                  {
                    path: APP_ROUTES.plan,
                    lazy: async () => ({ Component: (await import("../features/dashboard/plan/plan-page.tsx")).PlanPage }),
                  },
                  {
                    path: APP_ROUTES.devices,
                    lazy: async () => ({ Component: (await import("../features/devices/devices-page.tsx")).DevicesPage }),
                  },
                  {
                    path: APP_ROUTES.settings,
                    lazy: async () => ({ Component: (await import("../features/settings/settings-page.tsx")).SettingsPage }),
                  },
                ],
              },
              // Discussions (issue 13). Their join link opens a screen to pick a name; it never signs a device in.
              {
                path: APP_ROUTES.newDiscussion,
                lazy: async () => ({ Component: (await import("./discussion-routes.tsx")).NewDiscussionRoute }),
              },
              {
                path: APP_ROUTES.joinDiscussion,
                lazy: async () => ({ Component: (await import("./discussion-routes.tsx")).JoinDiscussionRoute }),
              },
              {
                path: APP_ROUTES.discussion,
                lazy: async () => ({ Component: (await import("./discussion-routes.tsx")).DiscussionRoute }),
              },
            ],
          },
          // For phones without the app (issue 46): a paired page sends what was shared; "Latest" for a bookmark.
          {
            lazy: async () => ({ Component: (await import("./send-routes.tsx")).SendFrameRoute }),
            children: [
              { path: APP_ROUTES.send, lazy: async () => ({ Component: (await import("../features/send/send-page.tsx")).SendPage }) },
              { path: APP_ROUTES.latest, lazy: async () => ({ Component: (await import("./send-routes.tsx")).LatestRoute }) },
            ],
          },
          // Admins only (issue 30); everyone else gets the not-found screen.
          {
            lazy: async () => ({ Component: (await import("./admin-route.tsx")).AdminRoute }),
            children: [
              { path: APP_ROUTES.admin, lazy: async () => ({ Component: (await import("../features/admin/admin-page.tsx")).AdminPage }) },
            ],
          },
          // The page of a one-time reset link an admin handed over; the token is in the fragment.
          {
            path: APP_ROUTES.resetPassword,
            lazy: async () => ({ Component: (await import("../features/auth/reset-password-page.tsx")).ResetPasswordPage }),
          },
          // The pages of mailed links (issue 26), signed in or not; the token is in the fragment.
          {
            path: APP_ROUTES.signInLink,
            lazy: async () => ({ Component: (await import("../features/auth/email-link-pages.tsx")).SignInLinkPage }),
          },
          {
            path: APP_ROUTES.verifyEmail,
            lazy: async () => ({ Component: (await import("../features/auth/email-link-pages.tsx")).VerifyEmailPage }),
          },
          // Add a device: the signed-in device shows a code there (decision 013).
          {
            path: APP_ROUTES.addDevice,
            lazy: signedInPage(async () => (await import("../features/pairing/add-device-page.tsx")).AddDevicePage),
          },
          // The only route an Add a device code opens, on the new device; it waits for the approval.
          { path: APP_ROUTES.joinPairing, lazy: async () => ({ Component: (await import("./join-route.tsx")).JoinRoute }) },
          // The only route a pairing code opens; a signed-in device approves or denies there.
          { path: APP_ROUTES.pair, lazy: signedInPage(async () => (await import("../features/pairing/pair-page.tsx")).PairPage) },
        ],
      },
      { path: "*", Component: NotFound },
    ],
  },
];
