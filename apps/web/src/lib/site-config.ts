import { type RegistrationMode, SITE_API, type SiteConfig } from "@daysync/shared";
import { useEffect, useState } from "react";

/**
 * This installation's registration mode and its owner's details (issue 43), asked once per page load: the public
 * pages are built once for every install (decision 005), so what varies per install comes at run time. Read by hand
 * rather than with the shared zod schema, which would bring zod into the public pages' small bundle. Until it is
 * known, and if it cannot be read, nothing of the owner is shown and registration is taken as open (the server
 * still decides).
 */
let pending: Promise<SiteConfig> | undefined;

const NOTHING: SiteConfig = {
  registration: "open",
  contact_phone: null,
  contact_email: null,
  brand_line: null,
  app_store_url: null,
  play_store_url: null,
};

const MODES: readonly RegistrationMode[] = ["open", "invite", "closed"];
const text = (value: unknown) => (typeof value === "string" && value.trim() !== "" ? value : null);
const link = (value: unknown) => (typeof value === "string" && /^https?:\/\//.test(value) ? value : null);

function read(value: unknown): SiteConfig {
  if (!value || typeof value !== "object") return NOTHING;
  const v = value as Record<string, unknown>;
  return {
    registration: MODES.find((m) => m === v.registration) ?? "open",
    contact_phone: text(v.contact_phone),
    contact_email: text(v.contact_email),
    brand_line: text(v.brand_line),
    app_store_url: link(v.app_store_url),
    play_store_url: link(v.play_store_url),
  };
}

export function loadSiteConfig(): Promise<SiteConfig> {
  pending ??= fetch(SITE_API.config, { credentials: "same-origin" })
    .then((res) => (res.ok ? res.json() : undefined))
    .then(read, () => NOTHING);
  return pending;
}

/** This installation's settings; undefined while they load. */
export function useSiteConfig(): SiteConfig | undefined {
  const [config, setConfig] = useState<SiteConfig>();
  useEffect(() => {
    let live = true;
    void loadSiteConfig().then((value) => live && setConfig(value));
    return () => {
      live = false;
    };
  }, []);
  return config;
}

/** The copyright line of this year, with the owner's brand line when set. */
export function copyrightLine(brandLine: string | null | undefined, year = new Date().getFullYear()): string {
  return brandLine ? `© ${year} ${brandLine}` : `© ${year}`;
}
