import { HomePage } from "../features/site/home-page.tsx";
import { LandingPage } from "../features/site/landing-page.tsx";

/** The public pages, rendered without the client router: they link to the app with ordinary links. */
export function PublicPage({ path }: { path: string }) {
  return path === "/home" ? <HomePage /> : <LandingPage />;
}
