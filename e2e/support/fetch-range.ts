/** A Range request made from inside the page, so that the page's service worker answers it. */
import type { Page } from "playwright-core";

/** What the page's fetch of `href` with `range` answers: status, Content-Range, Content-Length and the bytes. */
export function fetchRange(page: Page, href: string, range: string) {
  return page.evaluate(
    async ([href, range]) => {
      const res = await fetch(href, { headers: { range } });
      return {
        status: res.status,
        contentRange: res.headers.get("content-range"),
        length: res.headers.get("content-length"),
        bytes: Array.from(new Uint8Array(await res.arrayBuffer())),
      };
    },
    [href, range] as const,
  );
}
