import { copyrightLine, useSiteConfig } from "../../lib/site-config.ts";

/**
 * "© <this year> <BRAND_LINE>", shown once this server's settings are read and only when it has a brand line. The
 * year is the browser's, written after hydration: a page prerendered in an earlier year would not match it.
 */
export function OwnerCopyright() {
  const brandLine = useSiteConfig()?.brand_line;
  return brandLine ? <span>{copyrightLine(brandLine)}</span> : null;
}
