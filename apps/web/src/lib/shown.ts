/**
 * What a page shows of a value that may have been sealed: the text, or a sentence in its place (no Copy, no
 * preview), or nothing yet while it opens. The sealing boundary (lib/sealing/opened-messages.ts) makes it; the views
 * read it, and so never call the boundary themselves.
 */
export type Shown = SettledShown | { kind: "opening" };
export type SettledShown = { kind: "text"; text: string } | { kind: "notice"; text: string };
