/**
 * A browser reduced to what sign-in through a provider needs: cookies per host, redirects followed across hosts
 * (or stopped before a chosen address, to replay or tamper with it), and forms posted. Over real HTTP.
 */
export interface Step {
  status: number;
  /** The address answered last. */
  url: URL;
  /** Where it redirected, when following stopped before going there. */
  location: URL | undefined;
  body: string;
}

export class RedirectBrowser {
  private readonly jar = new Map<string, Map<string, string>>();

  cookie(host: string, name: string): string | undefined {
    return this.jar.get(host)?.get(name);
  }

  setCookie(host: string, name: string, value: string): void {
    const cookies = this.jar.get(host) ?? new Map<string, string>();
    cookies.set(name, value);
    this.jar.set(host, cookies);
  }

  private remember(url: URL, res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair = "", ...attributes] = line.split(";").map((p) => p.trim());
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      const expired = attributes.some((a) => /^max-age=0$/i.test(a) || (/^expires=/i.test(a) && Date.parse(a.slice(8)) < Date.now()));
      if (expired || value === "") this.jar.get(url.host)?.delete(name);
      else this.setCookie(url.host, name, value);
    }
  }

  /** Requests `start` and follows its redirects until a page answers, or until the next address matches `stopAt`. */
  async go(
    start: string | URL,
    options: { method?: string; form?: Record<string, string>; stopAt?: (next: URL) => boolean } = {},
  ): Promise<Step> {
    let url = new URL(start);
    let method = options.method ?? (options.form ? "POST" : "GET");
    let body: string | undefined = options.form ? new URLSearchParams(options.form).toString() : undefined;
    for (let hops = 0; hops < 20; hops++) {
      const cookies = [...(this.jar.get(url.host) ?? new Map<string, string>())].map(([k, v]) => `${k}=${v}`).join("; ");
      const res = await fetch(url, {
        method,
        redirect: "manual",
        headers: {
          ...(cookies ? { cookie: cookies } : {}),
          ...(body ? { "content-type": "application/x-www-form-urlencoded" } : {}),
        },
        body,
      });
      this.remember(url, res);
      const text = await res.text();
      const location = res.headers.get("location");
      if (res.status < 300 || res.status >= 400 || !location) return { status: res.status, url, location: undefined, body: text };
      const next = new URL(location, url);
      if (options.stopAt?.(next)) return { status: res.status, url, location: next, body: text };
      url = next;
      method = "GET";
      body = undefined;
    }
    throw new Error(`too many redirects from ${String(start)}`);
  }

  /** Fills and submits the first form of a page (the provider's login page): its action, with `fields`. */
  async submitForm(page: Step, fields: Record<string, string>, options: { stopAt?: (next: URL) => boolean } = {}): Promise<Step> {
    const action = /<form[^>]*action="([^"]+)"/.exec(page.body)?.[1];
    if (!action) throw new Error(`no form on ${page.url.href}: ${page.body.slice(0, 300)}`);
    const hidden = Object.fromEntries(
      [...page.body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], m[2]]),
    );
    return this.go(new URL(action.replaceAll("&amp;", "&"), page.url), { form: { ...hidden, ...fields }, stopAt: options.stopAt });
  }
}
