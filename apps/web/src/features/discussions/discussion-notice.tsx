import { Link } from "react-router";
import type { ClosedNotice } from "./api/discussions-cache.ts";
import "./discussions.css";

type NoticeReason = ClosedNotice | "missing" | "offline";

const TEXTS: Record<NoticeReason, { heading: string; body: string }> = {
  ended: { heading: "This discussion has ended.", body: "Its creator ended it; its messages and files are deleted." },
  ended_by_you: { heading: "You ended this discussion.", body: "Its messages and files are deleted for everyone." },
  expired: { heading: "This discussion has ended.", body: "Its time ran out; its messages and files are deleted." },
  left: { heading: "You left this discussion.", body: "You can join again with its ID while it lasts." },
  removed: { heading: "You were removed from this discussion.", body: "Its creator removed you." },
  missing: {
    heading: "This discussion is not available.",
    body: "It may have ended, or you are not a member of it. Ask for its ID or link to join.",
  },
  offline: { heading: "This discussion is not on this device yet.", body: "It loads when the connection is back." },
};

/** What an open discussion view shows once the user is no longer in it, or when it cannot be opened. */
export function DiscussionNotice({ reason }: { reason: NoticeReason }) {
  const text = TEXTS[reason];
  return (
    <section className="discussion-notice" role="status" aria-labelledby="discussion-notice-heading">
      <h1 id="discussion-notice-heading">{text.heading}</h1>
      <p>{text.body}</p>
      <Link to="/dashboard" className="btn btn-secondary">
        Back to your days
      </Link>
    </section>
  );
}
