import type { ReactElement } from "react";

const landing = () => import("../features/site/landing-page.tsx").then(({ LandingPage }) => <LandingPage />);

/**
 * The public pages, rendered without the client router: they link to the app with ordinary links. Each path loads
 * only its own page's code, so the landing does not wait on the others'.
 */
const PUBLIC_PAGES: Record<string, () => Promise<ReactElement>> = {
  "/": landing,
  "/landing": landing,
  "/home": () => import("../features/site/home-page.tsx").then(({ HomePage }) => <HomePage />),
  "/privacy": () => import("../features/site/privacy-page.tsx").then(({ PrivacyPage }) => <PrivacyPage />),
};

/** The public page at this path, loading; undefined for every other path (the app's). */
export function loadPublicPage(path: string): Promise<ReactElement> | undefined {
  return Object.hasOwn(PUBLIC_PAGES, path) ? PUBLIC_PAGES[path]?.() : undefined;
}
