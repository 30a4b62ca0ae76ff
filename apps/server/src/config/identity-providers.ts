/**
 * Identity provider settings (issue 26): `PUBLIC_URL`, the OpenID Connect providers of `OIDC_PROVIDERS` and GitHub.
 * Read by config.ts; each problem names its variable, and any problem stops the server at start.
 */
import { isIP } from "node:net";

export interface OidcProviderConfig {
  kind: "oidc";
  /** The id in `OIDC_PROVIDERS` (lowercase), in the callback path `/api/auth/oidc/<id>/callback`. */
  id: string;
  label: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  allowSignup: boolean;
  /** Lowercase email domains a new account may have; empty: any. */
  allowedDomains: string[];
}

export interface GithubProviderConfig {
  kind: "github";
  id: "github";
  label: "GitHub";
  clientId: string;
  clientSecret: string;
  allowSignup: boolean;
  allowedDomains: string[];
  /** Where people authorize and codes are exchanged: https://github.com (a local fake in tests). */
  baseUrl: string;
  /** GitHub's REST API: https://api.github.com (a local fake in tests). */
  apiUrl: string;
}

export type ProviderConfig = OidcProviderConfig | GithubProviderConfig;

export interface IdentityConfig {
  /** The address people use, without a trailing slash: callback URLs are made from it. */
  publicUrl: string;
  /** Whether PUBLIC_URL was given: links an admin copies are then made from it, else from the address the admin used. */
  publicUrlGiven: boolean;
  providers: ProviderConfig[];
}

const ID = /^[a-z0-9](?:[a-z0-9_-]{0,30}[a-z0-9])?$/;
const DOMAIN = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

/** localhost, 127.0.0.0/8 and ::1: the only hosts where plain http is accepted for PUBLIC_URL (local development). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host.endsWith(".localhost") || isLoopbackAddress(host);
}

/**
 * 127.0.0.0/8 and ::1 written as addresses: the only hosts this server talks to over plain http (a provider in
 * tests). A name, even `localhost` or `idp.localhost`, is looked up, and whatever resolves it decides (issue 42).
 */
export function isLoopbackAddress(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (isIP(host) === 4) return host.startsWith("127.");
  return isIP(host) === 6 && host === "::1";
}

/** The variable's name for a provider id: `work-sso` → `OIDC_WORK_SSO_<suffix>`. */
export const oidcVariable = (id: string, suffix: string) => `OIDC_${id.toUpperCase().replace(/-/g, "_")}_${suffix}`;

function parseBool(name: string, value: string | undefined, problems: string[]): boolean {
  if (value === undefined || value === "") return false;
  if (["true", "1"].includes(value)) return true;
  if (["false", "0"].includes(value)) return false;
  problems.push(`${name}: must be true or false`);
  return false;
}

function parseDomains(name: string, value: string | undefined, problems: string[]): string[] {
  if (!value?.trim()) return [];
  const domains = value.split(",").map((d) => d.trim().toLowerCase().replace(/^@/, ""));
  const bad = domains.filter((d) => !DOMAIN.test(d));
  if (bad.length > 0) problems.push(`${name}: not a domain: ${bad.join(", ")}`);
  return domains;
}

/**
 * An https URL (http only on a loopback host; a URL this server fetches, only on a loopback address), without query
 * or fragment; undefined after naming the problem.
 */
function parseUrl(
  name: string,
  value: string | undefined,
  problems: string[],
  what: string,
  httpOn: (hostname: string) => boolean = isLoopbackAddress,
): string | undefined {
  if (!value?.trim()) {
    problems.push(`${name}: required (${what})`);
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    problems.push(`${name}: not a URL: ${value}`);
    return undefined;
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && httpOn(url.hostname))) {
    const where = httpOn === isLoopbackAddress ? "a loopback address such as 127.0.0.1" : "localhost";
    problems.push(`${name}: must be an https:// URL (http:// only on ${where})`);
    return undefined;
  }
  if (url.search || url.hash || url.username || url.password) {
    problems.push(`${name}: must have no query, fragment or credentials`);
    return undefined;
  }
  // An issuer is kept as written: it must equal what the provider says it is, trailing slash and all.
  return name.endsWith("_ISSUER") ? value.trim() : url.href.replace(/\/$/, "");
}

function required(name: string, value: string | undefined, problems: string[], what: string): string {
  const v = value?.trim() ?? "";
  if (!v) problems.push(`${name}: required (${what})`);
  return v;
}

/** Reads the identity settings; what is wrong goes to `problems`, one line per variable. */
export function parseIdentityConfig(env: NodeJS.ProcessEnv, port: number, problems: string[]): IdentityConfig {
  const publicUrl = env.PUBLIC_URL?.trim()
    ? (parseUrl("PUBLIC_URL", env.PUBLIC_URL, problems, "the address people use", isLoopbackHost) ?? "")
    : `http://localhost:${port}`;
  const providers: ProviderConfig[] = [];

  const ids = (env.OIDC_PROVIDERS ?? "")
    .split(",")
    .map((id) => id.trim())
    .filter(Boolean);
  const seen = new Set<string>();
  for (const raw of ids) {
    const id = raw.toLowerCase();
    if (!ID.test(id) || id === "github") {
      problems.push(`OIDC_PROVIDERS: "${raw}" is not a usable id (letters, digits, - and _; "github" is taken by GitHub)`);
      continue;
    }
    if (seen.has(id)) {
      problems.push(`OIDC_PROVIDERS: "${raw}" is listed twice`);
      continue;
    }
    seen.add(id);
    const v = (suffix: string) => oidcVariable(id, suffix);
    const issuer = parseUrl(v("ISSUER"), env[v("ISSUER")], problems, "the provider's issuer URL");
    const clientId = required(v("CLIENT_ID"), env[v("CLIENT_ID")], problems, "the client id registered at the provider");
    const clientSecret = required(v("CLIENT_SECRET"), env[v("CLIENT_SECRET")], problems, "the client secret");
    const label = env[v("LABEL")]?.trim() || raw;
    if (label.length > 40) problems.push(`${v("LABEL")}: at most 40 characters`);
    const allowSignup = parseBool(v("ALLOW_SIGNUP"), env[v("ALLOW_SIGNUP")], problems);
    const allowedDomains = parseDomains(v("ALLOWED_DOMAINS"), env[v("ALLOWED_DOMAINS")], problems);
    if (issuer) providers.push({ kind: "oidc", id, label, issuer, clientId, clientSecret, allowSignup, allowedDomains });
  }

  const github = ["GITHUB_CLIENT_ID", "GITHUB_CLIENT_SECRET"].some((name) => env[name]?.trim());
  if (github) {
    const clientId = required("GITHUB_CLIENT_ID", env.GITHUB_CLIENT_ID, problems, "the OAuth app's client id");
    const clientSecret = required("GITHUB_CLIENT_SECRET", env.GITHUB_CLIENT_SECRET, problems, "the OAuth app's client secret");
    const allowSignup = parseBool("GITHUB_ALLOW_SIGNUP", env.GITHUB_ALLOW_SIGNUP, problems);
    const allowedDomains = parseDomains("GITHUB_ALLOWED_DOMAINS", env.GITHUB_ALLOWED_DOMAINS, problems);
    // For tests only: a local stand-in for GitHub, accepted on a loopback host alone.
    const local = (name: string, fallback: string) => {
      const value = env[name]?.trim();
      if (!value) return fallback;
      const url = parseUrl(name, value, problems, "");
      if (url && !isLoopbackAddress(new URL(url).hostname)) problems.push(`${name}: only a loopback address (for tests)`);
      return url ?? fallback;
    };
    const baseUrl = local("GITHUB_BASE_URL", "https://github.com");
    const apiUrl = local("GITHUB_API_URL", "https://api.github.com");
    providers.push({ kind: "github", id: "github", label: "GitHub", clientId, clientSecret, allowSignup, allowedDomains, baseUrl, apiUrl });
  }
  return { publicUrl, publicUrlGiven: Boolean(env.PUBLIC_URL?.trim()), providers };
}
