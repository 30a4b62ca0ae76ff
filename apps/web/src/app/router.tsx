import { createBrowserRouter } from "react-router";
import { ErrorScreen, NotFound } from "./error-screen.tsx";

/** Routes of product.md section 2. Each page is split out so the public pages load only what they need. */
export const router = createBrowserRouter([
  {
    path: "/",
    errorElement: <ErrorScreen />,
    children: [
      { index: true, lazy: async () => ({ Component: (await import("../features/site/landing-page.tsx")).LandingPage }) },
      { path: "landing", lazy: async () => ({ Component: (await import("../features/site/landing-page.tsx")).LandingPage }) },
      { path: "home", lazy: async () => ({ Component: (await import("../features/site/home-page.tsx")).HomePage }) },
      { path: "*", Component: NotFound },
    ],
  },
]);
