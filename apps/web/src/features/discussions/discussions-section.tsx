import { DISCUSSION_ROUTES, normalizePublicId, TEXT } from "@daysync/shared";
import { type FormEvent, useEffect, useId, useState } from "react";
import { Link, useMatch, useNavigate } from "react-router";
import { PlusIcon } from "../../components/ui/icons.tsx";
import { describeError } from "../../lib/api-errors.ts";
import { useOpenedTitle } from "../../lib/sealing/room-hooks.ts";
import { useMyDiscussions } from "./api/discussions.ts";
import { formatDiscussionTimeLeft } from "./time-left.ts";
import "./discussions.css";

/** The sidebar's 'Discussions': New, Join by ID, and the user's open discussions with time left and unread count. */
export function DiscussionsSection({ headingId }: { headingId: string }) {
  const navigate = useNavigate();
  return (
    <nav className="sidebar-nav discussions-nav" aria-labelledby={headingId}>
      <div className="sidebar-section-head">
        <h2 className="sidebar-heading" id={headingId}>
          {TEXT.discussions}
        </h2>
        <button type="button" className="sidebar-today" onClick={() => void navigate(DISCUSSION_ROUTES.new)}>
          <PlusIcon size={16} />
          {TEXT.newDiscussion}
        </button>
      </div>
      <JoinById />
      <DiscussionList />
    </nav>
  );
}

function JoinById() {
  const navigate = useNavigate();
  const inputId = useId();
  const [value, setValue] = useState("");
  const [error, setError] = useState<string | null>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const id = normalizePublicId(value);
    if (!id) {
      setError(value.trim() ? "An ID is 10 letters and digits, like ABCDE-23456." : "Enter the ID you were given.");
      return;
    }
    setError(null);
    setValue("");
    void navigate(DISCUSSION_ROUTES.join(id));
  };
  return (
    <form className="discussion-join" onSubmit={submit} noValidate>
      <label className="visually-hidden" htmlFor={inputId}>
        Discussion ID to join
      </label>
      <input
        id={inputId}
        className="field-input discussion-join-input"
        placeholder="ID to join"
        autoComplete="off"
        autoCapitalize="characters"
        spellCheck={false}
        value={value}
        onChange={(e) => setValue(e.currentTarget.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${inputId}-error` : undefined}
      />
      <button type="submit" className="sidebar-today">
        Join
      </button>
      {error ? (
        <p className="discussion-join-error" id={`${inputId}-error`}>
          {error}
        </p>
      ) : null}
    </form>
  );
}

/**
 * The time, every 30 s: enough for "6 d 23 h left". Not the shared one-second clock (lib/use-now.ts), which
 * would keep running for the sidebar and so hand a new message's countdown a time up to a second old.
 */
function useCoarseNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

function DiscussionList() {
  const list = useMyDiscussions();
  const now = useCoarseNow();
  const match = useMatch("/discussions/:id");
  if (list.isPending) return <p className="sidebar-note">Loading discussions…</p>;
  if (list.isError) {
    return (
      <div className="sidebar-note">
        <p>{describeError(list.error)}</p>
        <button type="button" className="sidebar-link-button" onClick={() => void list.refetch()}>
          Try again
        </button>
      </div>
    );
  }
  const open = list.data.filter((d) => d.ends_at > now);
  if (open.length === 0) return <p className="sidebar-note">No discussions yet. Start one with New, or join one with its ID.</p>;
  return (
    <ul className="sidebar-list">
      {open.map((d) => {
        const left = formatDiscussionTimeLeft(d.ends_at - now);
        return (
          <li key={d.id}>
            <Link
              to={DISCUSSION_ROUTES.one(d.id)}
              className="day-link discussion-link"
              aria-current={match?.params.id === d.id ? "page" : undefined}
            >
              <span className="day-link-body">
                <span className="day-link-top">
                  <DiscussionTitle id={d.id} title={d.title} encrypted={d.encrypted} />
                  {d.unread > 0 ? (
                    <span className="discussion-unread">
                      {d.unread}
                      <span className="visually-hidden"> unread</span>
                    </span>
                  ) : null}
                </span>
                <span className="day-preview">{left} left</span>
              </span>
            </Link>
          </li>
        );
      })}
    </ul>
  );
}

/** A discussion's title in the list; an encrypted one's is opened on this device. */
function DiscussionTitle({ id, title, encrypted }: { id: string; title: string; encrypted?: boolean }) {
  return <span className="day-date discussion-title">{useOpenedTitle(id, title, encrypted)}</span>;
}
