import { useEffect, useMemo, useState } from "react";
import { useLocation, useParams } from "react-router";
import { PageSpinner } from "../components/ui/spinner.tsx";
import { ChatView } from "../features/chat/chat-view.tsx";
import { useClosedReason, useDiscussion } from "../features/discussions/api/discussions.ts";
import { DiscussionHeader } from "../features/discussions/discussion-header.tsx";
import { DiscussionNotice } from "../features/discussions/discussion-notice.tsx";
import { JoinDiscussionPage } from "../features/discussions/join-discussion-page.tsx";
import { NewDiscussionPage } from "../features/discussions/new-discussion-page.tsx";
import { useMarkRead } from "../features/discussions/use-mark-read.ts";
import { ApiError } from "../lib/api-client.ts";
import { describeError } from "../lib/api-errors.ts";
import { openedDetails, useRoom } from "../lib/sealing/room-hooks.ts";
import { useCurrentUser } from "../lib/session-services.ts";

export function NewDiscussionRoute() {
  return <NewDiscussionPage />;
}

/** /discussions/join/:publicId: the join link's screen (a visitor signs in first and comes back here). */
export function JoinDiscussionRoute() {
  const { publicId = "" } = useParams();
  // Another link to the same ID (a fragment changed alone) is read afresh: its key is another one.
  const { hash } = useLocation();
  return <JoinDiscussionPage key={`${publicId}${hash}`} publicId={publicId} />;
}

/** /discussions/:id: the chat of a discussion under its header, or why it cannot be shown. */
export function DiscussionRoute() {
  const { id = "" } = useParams();
  return <Discussion key={id} id={id} />;
}

const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** True once `at` (ms since the epoch) has passed; re-renders at that moment, not every second. */
function usePassed(at: number | undefined): boolean {
  const [passed, setPassed] = useState(false);
  useEffect(() => {
    if (at === undefined) return;
    const left = at - Date.now();
    setPassed(left <= 0);
    if (left <= 0) return;
    const timer = setTimeout(() => setPassed(Date.now() >= at), Math.min(MAX_TIMEOUT_MS, left + 50));
    return () => clearTimeout(timer);
  }, [at]);
  return passed;
}

function Discussion({ id }: { id: string }) {
  const user = useCurrentUser();
  const location = useLocation();
  const closed = useClosedReason(id);
  const details = useDiscussion(id);
  const room = useRoom(id);
  const view = room.data?.encrypted ? room.data : undefined;
  // An encrypted discussion's title and names travel sealed: shown as this device opened them.
  const shown = useMemo(() => (details.data && view ? openedDetails(details.data, view) : details.data), [details.data, view]);
  useMarkRead(id);
  // Its time ran out while open: the server's `discussion.closed` follows with the sweep; say so now.
  const expired = usePassed(details.data?.discussion.ends_at);
  if (closed) return <DiscussionNotice reason={closed} />;
  if (expired) return <DiscussionNotice reason="expired" />;
  if (details.error instanceof ApiError && (details.error.status === 404 || details.error.status === 400)) {
    return <DiscussionNotice reason="missing" />;
  }
  if (details.isError && !details.data) {
    return (
      <div className="message-empty" role="alert">
        <p>{describeError(details.error)}</p>
        <button type="button" className="btn btn-secondary btn-sm" onClick={() => void details.refetch()}>
          Try again
        </button>
      </div>
    );
  }
  if (!details.data && details.fetchStatus === "paused") return <DiscussionNotice reason="offline" />;
  if (!shown || (room.isPending && room.fetchStatus !== "paused")) return <PageSpinner label="Loading discussion" />;
  const openShare = (location.state as { share?: boolean } | null)?.share === true;
  return (
    <ChatView
      space={{ kind: "discussion", id }}
      header={<DiscussionHeader details={shown} user={user} openShare={openShare} room={view} />}
      memberChanges={shown.member_changes}
    />
  );
}
