/**
 * Every route of the web app (product.md section 2), one list for both ends: the web app's router is built from these
 * patterns, and the server answers 404 to a page request that matches none of them (the app still shows its
 * 'Unexpected Application Error!' screen there). `:name` is one path segment; `:name?` an optional last one.
 */
export const APP_ROUTES = {
  landing: "/",
  landingPage: "/landing",
  home: "/home",
  privacy: "/privacy",
  login: "/login",
  register: "/register",
  dashboard: "/dashboard",
  dashboardHome: "/dashboard/home",
  day: "/dashboard/days/:dayId",
  plan: "/dashboard/plan",
  devices: "/dashboard/devices",
  newDiscussion: "/discussions/new",
  joinDiscussion: "/discussions/join/:publicId",
  discussion: "/discussions/:id",
  addDevice: "/pair/add",
  joinPairing: "/pair/join/:code?",
  pair: "/pair/:code?",
  admin: "/admin",
  resetPassword: "/reset-password",
  settings: "/dashboard/settings",
  // Email (issue 26): the two forms of /login's links, and the pages the mailed links open (token in the fragment).
  forgotPassword: "/forgot-password",
  emailSignIn: "/sign-in-by-email",
  signInLink: "/sign-in-link",
  verifyEmail: "/verify-email",
  // Issue 46: send what a share menu or an Apple Shortcut put in the fragment, and the newest message with Copy.
  send: "/send",
  latest: "/latest",
} as const;

const segmentsOf = (path: string) => path.split("/").filter(Boolean);

const PATTERNS = Object.values(APP_ROUTES).map(segmentsOf);

function matches(pattern: string[], segments: string[]): boolean {
  if (segments.length > pattern.length) return false;
  return pattern.every((part, i) => {
    const segment = segments[i];
    if (segment === undefined) return part.startsWith(":") && part.endsWith("?");
    return part.startsWith(":") || part === segment;
  });
}

/** Whether a pathname (no query) is one of the app's routes; a trailing slash is allowed, as the router allows it. */
export function isAppPath(pathname: string): boolean {
  let segments: string[];
  try {
    segments = segmentsOf(pathname).map(decodeURIComponent);
  } catch {
    return false;
  }
  return PATTERNS.some((pattern) => matches(pattern, segments));
}
