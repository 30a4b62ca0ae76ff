import type { DiscussionClosedReason } from "@daysync/shared";
import { Link } from "react-router";
import "./discussions.css";

const TEXTS: Record<DiscussionClosedReason | "missing", { heading: string; body: string }> = {
  ended: { heading: "This discussion has ended.", body: "Its creator ended it; its messages and files are deleted." },
  expired: { heading: "This discussion has ended.", body: "Its time ran out; its messages and files are deleted." },
  left: { heading: "You left this discussion.", body: "You can join again with its ID while it lasts." },
  removed: { heading: "You were removed from this discussion.", body: "Its creator removed you." },
  missing: {
    heading: "This discussion is not available.",
    body: "It may have ended, or you are not a member of it. Ask for its ID or link to join.",
  },
};

/** What an open discussion view shows once the user is no longer in it, or when it cannot be opened. */
export function DiscussionNotice({ reason }: { reason: DiscussionClosedReason | "missing" }) {
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
