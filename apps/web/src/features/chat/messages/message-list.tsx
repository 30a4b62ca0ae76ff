import { TEXT } from "@daysync/shared";
import { type ReactNode, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { useLocation } from "react-router";
import { MESSAGES_ID, onSent, registerMessages } from "../../../lib/chat-focus.ts";
import type { OutboxEntry } from "../../../lib/outbox-storage.ts";
import { expiresAt } from "./expiry.ts";
import { MessageItem } from "./message-item.tsx";
import { PendingMessage } from "./pending-message.tsx";
import type { ShownMessage } from "./shown-message.ts";
import "./messages.css";

interface MessageListProps {
  /** Changes when another day opens, to jump to its newest message. */
  viewKey: string;
  messages: readonly ShownMessage[];
  pending: readonly OutboxEntry[];
  maxMinutes: number | null;
  /** Shown above the messages and scrolled with them, such as the first-run welcome. */
  intro?: ReactNode;
  /** What the empty state says under its heading; by default, an invitation to type a note for this day. */
  emptyNote?: ReactNode;
  /** The empty state's heading; by default the spec's words for a day without messages. */
  emptyTitle?: string;
  /** Quiet lines between the messages, by time (in a discussion: who joined, left or was removed). */
  lines?: readonly ConversationLine[];
  /** In a discussion: who wrote each message, whether the reader may delete it, and the discussion. */
  discussion?: {
    id: string;
    authorOf: (message: ShownMessage) => string;
    canDelete: (message: ShownMessage) => boolean;
  };
}

/** A quiet line among the messages, such as "Bobby joined", at its time (ms since the epoch). */
export interface ConversationLine {
  id: string;
  at: number;
  text: string;
  /** A gap (messages that did not arrive): said as a status, with no time of its own. */
  gap?: boolean;
}

const NEAR_BOTTOM_PX = 160;
/** A scroll this soon after a wheel, touch, key or pointer in the list is the reader's; any other the browser's own. */
const READER_SCROLL_MS = 1000;
const NO_LINES: readonly ConversationLine[] = [];
const READER_INPUTS = ["wheel", "touchmove", "keydown", "pointerdown"] as const;

/** Puts the list at its end and notes where that was. */
function toEnd(el: HTMLElement, followedTop: { current: number }) {
  el.scrollTop = el.scrollHeight;
  followedTop.current = el.scrollTop;
}

/**
 * The reader jumped up, far from the end, and the browser has not sent that scroll event yet (it comes with the next
 * frame): a render or a resize in between must not pull the list back. A list the browser cut back stays near its end.
 */
function leftEndUnreported(el: HTMLElement, followedTop: { current: number }): boolean {
  const fromEnd = el.scrollHeight - el.scrollTop - el.clientHeight;
  return el.scrollTop < followedTop.current - 1 && fromEnd >= NEAR_BOTTOM_PX;
}

/** The messages in order with each line placed before the first message that came after it. */
function interleave(messages: readonly ShownMessage[], lines: readonly ConversationLine[]) {
  const items: ({ line: ConversationLine } | { message: ShownMessage })[] = [];
  let next = 0;
  for (const message of messages) {
    for (; next < lines.length && (lines[next]?.at ?? 0) <= message.timestamps; next++)
      items.push({ line: lines[next] as ConversationLine });
    items.push({ message });
  }
  for (; next < lines.length; next++) items.push({ line: lines[next] as ConversationLine });
  return items;
}

const lineTime = (at: number) => new Date(at).toLocaleTimeString(undefined, { hour: "numeric", minute: "2-digit" });

interface HighlightState {
  highlight?: string;
}

export function MessageList({
  viewKey,
  messages,
  pending,
  maxMinutes,
  intro,
  emptyNote,
  emptyTitle,
  lines = NO_LINES,
  discussion,
}: MessageListProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const nearBottom = useRef(true);
  // Not 0: performance.now() counts from the page's load, and the first second would all look like the reader's.
  const readerInput = useRef(Number.NEGATIVE_INFINITY);
  // Where the list last put itself at its end: a scroll event that finds it still there is the list's own.
  const followedTop = useRef(-1);
  const location = useLocation();
  const requested = (location.state as HighlightState | null)?.highlight;
  const [highlight, setHighlight] = useState<string | undefined>(undefined);
  const total = messages.length + pending.length;
  const items = useMemo(() => interleave(messages, lines), [messages, lines]);

  // Follow new messages only when the reader is already at the end; a new day opens at its end.
  const lastView = useRef<string | null>(null);
  // A search result is being shown: it keeps its place.
  const showingResult = useRef(false);
  useLayoutEffect(() => {
    const el = scroller.current;
    showingResult.current = Boolean(requested && messages.some((m) => m.id === requested));
    if (!el || total + lines.length === 0) return;
    const newView = lastView.current !== viewKey;
    lastView.current = viewKey;
    if (showingResult.current) return;
    if (newView) nearBottom.current = true;
    else if (nearBottom.current && leftEndUnreported(el, followedTop)) nearBottom.current = false;
    if (nearBottom.current) toEnd(el, followedTop);
  }, [viewKey, total, lines.length, requested, messages]);

  // Thumbnails that load (a sealed one opens a moment after its message shows), a composer that grows or shrinks: a
  // reader at the end stays at the end, so the newest message is never left under the composer. The list that
  // replaces the empty state, or another day's, is a new child: it is observed as it comes.
  useEffect(() => {
    const el = scroller.current;
    if (!el || typeof ResizeObserver === "undefined") return;
    const resized = new ResizeObserver(() => {
      if (nearBottom.current && leftEndUnreported(el, followedTop)) nearBottom.current = false;
      if (nearBottom.current && !showingResult.current) toEnd(el, followedTop);
    });
    resized.observe(el);
    for (const child of Array.from(el.children)) resized.observe(child);
    const replaced = new MutationObserver((records) => {
      for (const record of records) {
        for (const node of Array.from(record.removedNodes)) if (node instanceof Element) resized.unobserve(node);
        for (const node of Array.from(record.addedNodes)) if (node instanceof Element) resized.observe(node);
      }
    });
    replaced.observe(el, { childList: true });
    const noteReaderInput = () => {
      readerInput.current = performance.now();
    };
    for (const input of READER_INPUTS) el.addEventListener(input, noteReaderInput, { passive: true });
    return () => {
      resized.disconnect();
      replaced.disconnect();
      for (const input of READER_INPUTS) el.removeEventListener(input, noteReaderInput);
    };
  }, []);

  useEffect(() => registerMessages(), []);

  // What one sends is what one wants to see: follow it to the end, even from further up.
  useEffect(
    () =>
      onSent(() => {
        nearBottom.current = true;
        showingResult.current = false;
        const el = scroller.current;
        if (el) toEnd(el, followedTop);
      }),
    [],
  );

  // A search result asked for this message: bring it into view and mark it for a moment.
  useEffect(() => {
    if (!requested || !messages.some((m) => m.id === requested)) return;
    document.getElementById(`message-${requested}`)?.scrollIntoView({ block: "center" });
    setHighlight(requested);
    const timer = setTimeout(() => setHighlight(undefined), 2500);
    return () => clearTimeout(timer);
  }, [requested, messages]);

  return (
    <div
      className="message-scroll"
      id={MESSAGES_ID}
      // The skip link's target; focused, the arrow keys scroll the messages.
      tabIndex={-1}
      ref={scroller}
      onScroll={(e) => {
        const el = e.currentTarget;
        const fromEnd = el.scrollHeight - el.scrollTop - el.clientHeight;
        const byReader = performance.now() - readerInput.current < READER_SCROLL_MS;
        // Not the reader's: the list's own scroll, read after a thumbnail grew the list, or the browser cutting the
        // list back as a message re-rendered a moment shorter. A reader at the end stays there; without this the list
        // stopped short of the newest message. A far jump (the browser's find in page) is the reader's own.
        const ours = el.scrollTop === followedTop.current || fromEnd < NEAR_BOTTOM_PX;
        if (nearBottom.current && !byReader && ours && !showingResult.current) {
          if (fromEnd > 1) toEnd(el, followedTop);
          return;
        }
        nearBottom.current = fromEnd < NEAR_BOTTOM_PX;
      }}
    >
      {intro}
      {total + lines.length > 0 ? (
        <ol className="message-list" aria-label="Messages">
          {items.map((item) =>
            "line" in item ? (
              item.line.gap ? (
                <li key={`line-${item.line.id}`} className="message-line message-gap" role="status">
                  {item.line.text}
                </li>
              ) : (
                <li key={`line-${item.line.id}`} className="message-line">
                  <span>{item.line.text}</span> <time>{lineTime(item.line.at)}</time>
                </li>
              )
            ) : (
              <MessageItem
                key={item.message.id}
                message={item.message}
                expiresAt={expiresAt(item.message, maxMinutes)}
                highlighted={item.message.id === highlight}
                author={discussion?.authorOf(item.message)}
                canDelete={discussion ? discussion.canDelete(item.message) : true}
                discussionId={discussion?.id}
              />
            ),
          )}
          {pending.map((entry) => (
            <PendingMessage key={entry.id} entry={entry} author={discussion ? "You" : undefined} />
          ))}
        </ol>
      ) : null}
      {total === 0 ? (
        <div className="message-empty">
          <p>{emptyTitle ?? TEXT.noMessages}</p>
          {emptyNote ?? <span>Type below to keep a note for this day. It shows up on all your devices.</span>}
        </div>
      ) : null}
    </div>
  );
}
