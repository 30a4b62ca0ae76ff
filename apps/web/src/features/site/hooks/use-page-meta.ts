import { useEffect } from "react";

export interface PageMeta {
  title: string;
  description: string;
  /** Path of the page, for og:url and the canonical link. */
  path: string;
}

function setMeta(attribute: "name" | "property", key: string, content: string): void {
  let element = document.head.querySelector<HTMLMetaElement>(`meta[${attribute}="${key}"]`);
  if (!element) {
    element = document.createElement("meta");
    element.setAttribute(attribute, key);
    document.head.append(element);
  }
  element.content = content;
}

function setCanonical(href: string): void {
  let link = document.head.querySelector<HTMLLinkElement>('link[rel="canonical"]');
  if (!link) {
    link = document.createElement("link");
    link.rel = "canonical";
    document.head.append(link);
  }
  link.href = href;
}

/** Title, description and social-preview tags of one page (index.html carries the defaults). */
export function usePageMeta({ title, description, path }: PageMeta): void {
  useEffect(() => {
    const url = new URL(path, window.location.origin).href;
    document.title = title;
    setMeta("name", "description", description);
    setMeta("property", "og:title", title);
    setMeta("property", "og:description", description);
    setMeta("property", "og:url", url);
    setMeta("property", "og:image", new URL("/og-image.png", window.location.origin).href);
    setMeta("name", "twitter:title", title);
    setMeta("name", "twitter:description", description);
    setCanonical(url);
  }, [title, description, path]);
}
