import type { AnchorHTMLAttributes } from "react";

/**
 * A link from a public page. Public pages render without the client router (so they load neither it
 * nor the app), and a link to the app is an ordinary page load that brings the app's code then.
 */
export function SiteLink({ to, ...props }: AnchorHTMLAttributes<HTMLAnchorElement> & { to: string }) {
  return <a href={to} {...props} />;
}
