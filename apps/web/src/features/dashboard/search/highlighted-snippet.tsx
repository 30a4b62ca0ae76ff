const CONTEXT_CHARS = 40;

/** A short excerpt around the first match, with the match marked. */
export function HighlightedSnippet({ text, q }: { text: string; q: string }) {
  const flat = text.replace(/\s+/g, " ");
  const at = flat.toLowerCase().indexOf(q.toLowerCase());
  if (at < 0) return <>{flat.slice(0, CONTEXT_CHARS * 2)}</>;
  const start = Math.max(0, at - CONTEXT_CHARS);
  const end = Math.min(flat.length, at + q.length + CONTEXT_CHARS * 2);
  return (
    <>
      {start > 0 ? "…" : ""}
      {flat.slice(start, at)}
      <mark>{flat.slice(at, at + q.length)}</mark>
      {flat.slice(at + q.length, end)}
      {end < flat.length ? "…" : ""}
    </>
  );
}
