import { HomePage } from "../features/site/home-page.tsx";
import { LandingPage } from "../features/site/landing-page.tsx";
import { PrivacyPage } from "../features/site/privacy-page.tsx";

/** The public pages, rendered without the client router: they link to the app with ordinary links. */
export function PublicPage({ path }: { path: string }) {
  if (path === "/home") return <HomePage />;
  if (path === "/privacy") return <PrivacyPage />;
  return <LandingPage />;
}
