/**
 * Where the pages read this installation's settings (`shared/site.ts`). Kept apart from site.ts, which makes zod
 * schemas as it loads: the public pages ask `SITE_API.config` and must not bring zod into their small bundle.
 */
export const SITE_API = {
  /** GET, public: this installation's registration mode and the owner's details (`SiteConfig`). */
  config: "/api/site",
} as const;
