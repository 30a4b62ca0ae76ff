import { formatDisplayDate } from "@daysync/shared";
import { useEffect, useId, useRef, useState } from "react";
import { Link } from "react-router";
import { CloseIcon, SearchIcon } from "../../../components/ui/icons.tsx";
import { Spinner } from "../../../components/ui/spinner.tsx";
import { describeError } from "../../../lib/api-errors.ts";
import { focusComposer, shortcutsDisabledAt } from "../../../lib/chat-focus.ts";
import { useSearch } from "../api/search.ts";
import { HighlightedSnippet } from "./highlighted-snippet.tsx";
import { useDebouncedValue } from "./use-debounced-value.ts";
import "./search.css";

const DEBOUNCE_MS = 250;

/** Searches the user's live messages as they type; a result opens its day at that message. */
export function SearchBox({ onActiveChange }: { onActiveChange: (active: boolean) => void }) {
  const inputId = useId();
  const headingId = useId();
  const [text, setText] = useState("");
  const q = useDebouncedValue(text.trim(), DEBOUNCE_MS).slice(0, 200);
  const search = useSearch(q);
  const active = text.trim().length > 0;
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => onActiveChange(active), [active, onActiveChange]);

  // "/" anywhere but in a field goes to the search, as in most web apps.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "/" || e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented || shortcutsDisabledAt(e.target)) return;
      const field = input.current;
      if (!field || field.getClientRects().length === 0) return;
      e.preventDefault();
      field.focus();
      field.select();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  return (
    <div className="search">
      <search className="search-field">
        <label htmlFor={inputId} className="visually-hidden">
          Search messages
        </label>
        <SearchIcon size={16} />
        <input
          id={inputId}
          ref={input}
          className="search-input"
          aria-keyshortcuts="/"
          type="search"
          placeholder="Search messages"
          autoComplete="off"
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            // Escape leaves the search: cleared, and back to the message box (or simply out of the field); in
            // the phone's drawer the same key closes the drawer too.
            if (e.key !== "Escape") return;
            setText("");
            if (!focusComposer()) e.currentTarget.blur();
          }}
        />
        {text ? (
          <button type="button" className="search-clear" aria-label="Clear search" onClick={() => setText("")}>
            <CloseIcon size={14} />
          </button>
        ) : null}
      </search>
      {active ? (
        <section className="search-results" aria-labelledby={headingId}>
          <h2 className="sidebar-heading" id={headingId}>
            Search results
          </h2>
          {search.isError ? (
            <p className="sidebar-note">{describeError(search.error)}</p>
          ) : !search.data || text.trim().slice(0, 200) !== q ? (
            <p className="sidebar-note search-busy">
              <Spinner /> Searching…
            </p>
          ) : search.data.length === 0 ? (
            <p className="sidebar-note">No messages match “{q}”.</p>
          ) : (
            <ul className="search-list">
              {search.data.map(({ message, day }) => (
                <li key={message.id}>
                  <Link
                    to={`/dashboard/days/${day.id}`}
                    state={{ highlight: message.id }}
                    className="search-hit"
                    onClick={() => setText("")}
                  >
                    <span className="search-hit-meta">
                      {formatDisplayDate(day.date)} · {message.time}
                    </span>
                    <span className="search-hit-text">
                      <HighlightedSnippet text={message.content} q={q} />
                    </span>
                  </Link>
                </li>
              ))}
            </ul>
          )}
        </section>
      ) : null}
    </div>
  );
}
