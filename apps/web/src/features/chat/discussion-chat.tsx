import type { MemberChange } from "@daysync/shared";
import { type ReactNode, useCallback, useMemo, useSyncExternalStore } from "react";
import { useSessionServices } from "../../lib/session-services.ts";
import { useOpenedDiscussionMessages } from "./api/discussion-messages.ts";
import { Composer } from "./composer/composer.tsx";
import { type ConversationLine, MessageList } from "./messages/message-list.tsx";
import { MessagesLoadError, MessagesLoading } from "./messages/messages-unavailable.tsx";
import type { ShownMessage } from "./messages/shown-message.ts";

const NO_CHANGES: readonly MemberChange[] = [];

/** What a line says of someone coming or going; the reader is "You". */
function lineText(change: MemberChange, mine: boolean): string {
  const who = mine ? "You" : change.display_name;
  switch (change.kind) {
    case "created":
      return `${who} started this discussion`;
    case "joined":
      return `${who} joined`;
    case "left":
      return `${who} left`;
    case "removed":
      return mine ? "You were removed" : `${who} was removed`;
  }
}

/**
 * A shared discussion: its messages, each with its author's name for this discussion ("You" for the reader's
 * own, set apart on the other side), who came and went as quiet lines between them, the waiting ones, and the
 * composer, which writes to the discussion. Messages live as long as it does.
 */
export function DiscussionChat({
  id,
  header,
  memberChanges = NO_CHANGES,
}: {
  id: string;
  header?: ReactNode;
  memberChanges?: readonly MemberChange[];
}) {
  const { outbox } = useSessionServices();
  const { query, messages } = useOpenedDiscussionMessages(id);
  const deletes = useSyncExternalStore(outbox.subscribe, outbox.getDeletes);
  const entries = useSyncExternalStore(outbox.subscribe, outbox.getEntries);
  const me = query.data?.discussion;
  const stored = useMemo(() => {
    if (deletes.length === 0) return messages;
    const deleted = new Set(deletes.map((d) => d.id));
    return messages.filter((m) => !deleted.has(m.id));
  }, [messages, deletes]);
  const pending = useMemo(() => {
    const confirmed = new Set(stored.map((m) => m.id));
    return entries.filter((e) => e.discussionId === id && !confirmed.has(e.id));
  }, [entries, stored, id]);

  const memberId = me?.member_id;
  const lines = useMemo<ConversationLine[]>(
    () => memberChanges.map((c) => ({ id: `${c.member_id}-${c.kind}-${c.at}`, at: c.at, text: lineText(c, c.member_id === memberId) })),
    [memberChanges, memberId],
  );
  const owner = me?.role === "owner";
  const authorOf = useCallback((m: ShownMessage) => (m.author?.id === memberId ? "You" : (m.author?.display_name ?? "")), [memberId]);
  const canDelete = useCallback((m: ShownMessage) => owner || m.author?.id === memberId, [owner, memberId]);
  const discussion = useMemo(() => ({ id, authorOf, canDelete }), [id, authorOf, canDelete]);

  return (
    <div className="day-view">
      {header}
      {query.isPending ? (
        <MessagesLoading offline={query.fetchStatus === "paused"} />
      ) : query.isError && !query.data ? (
        <MessagesLoadError error={query.error} onRetry={() => void query.refetch()} />
      ) : (
        <MessageList
          viewKey={id}
          messages={stored}
          pending={pending}
          maxMinutes={null}
          emptyTitle="No messages yet"
          emptyNote={<span>Say hello: everyone in this discussion sees what you send here, until it ends.</span>}
          lines={lines}
          discussion={discussion}
        />
      )}
      <Composer discussionId={id} />
    </div>
  );
}
