/**
 * What one kind of change is, in one place: how its ref is written to the log and read back, what a replay reads of
 * the current rows, who may have it replayed, and the live event it is shown as. The unit of work (live) and the
 * replay both build the event through the same definition, so a resumed device ends where a live one is.
 */
import type { ServerLiveEvent as LiveEvent, User } from "@daysync/shared";
import type { DateMessagesTable, KeyEpochsTable, MessagesTable } from "../../db/schema.ts";
import type { DeviceRow } from "../../presenters/devices.presenter.ts";
import type { DiscussionRow, MemberHistoryRow, MemberRow } from "../../presenters/discussion.presenter.ts";
import type { KeyRequestRow } from "../../presenters/key-requests.presenter.ts";
import type { Change, ChangeKind } from "../change.ts";

export type ChangeOf<K extends ChangeKind> = Extract<Change, { kind: K }>;
export type EventOf<K extends LiveEvent["kind"]> = Extract<LiveEvent, { kind: K }>;

/** A discussion's message with the name its author has there. */
export type MessageWithAuthor = MessagesTable & { author_id: string; author_name: string };

/**
 * What a replay reads of the current state, for one user and one page (a day's summary is read once per page). The
 * feed says what it needs; the live delivery (`realtime/replay.ts`) answers it from the modules' repositories.
 */
export interface ReplayReads {
  /** The time the page is read at (memberships and expiries are checked at it). */
  now: number;
  /** May the user read this space now (the policies, over their membership read once per page)? */
  mayRead(spaceId: string): Promise<boolean>;
  /** The user's retention cut-off: messages older are not served. */
  cutoff(): Promise<number | null>;
  day(dayId: string): Promise<DateMessagesTable | undefined>;
  message(id: string): Promise<MessagesTable | undefined>;
  user(): Promise<User | undefined>;
  device(sessionId: string): Promise<DeviceRow | undefined>;
  discussion(spaceId: string): Promise<DiscussionRow | undefined>;
  discussionMessage(spaceId: string, messageId: string): Promise<MessageWithAuthor | undefined>;
  members(spaceId: string): Promise<MemberRow[]>;
  memberHistory(spaceId: string): Promise<MemberHistoryRow[]>;
  keyEpoch(epoch: number): Promise<Pick<KeyEpochsTable, "epoch" | "reason" | "created_by_session_id"> | undefined>;
  keyRequest(requestId: string): Promise<KeyRequestRow | undefined>;
}

/**
 * One kind of change. `Facts`: the rows its event is built from, which the service that makes the change already
 * holds and a replay reads again (`undefined` when the change itself says all). `Event`: what it is shown as (a replay of
 * an expired message shows its day instead).
 */
export interface ChangeKindDefinition<K extends ChangeKind, Facts = undefined, Event extends LiveEvent = EventOf<K>> {
  /** The ref the log keeps. The formats are those rows already written have, so old logs replay unchanged. */
  ref(change: ChangeOf<K>): string;
  /** Reads a logged ref back; undefined for one this version cannot read (it is skipped, not served). */
  parse(ref: string, kind: K): ChangeOf<K> | undefined;
  /**
   * Who may have it replayed: anyone whose log holds it (`own`: it is about their own account, or tells them they
   * are out), or only a reader of the space it is in, asked of the policies at replay time.
   */
  access: "own" | { space(change: ChangeOf<K>, facts: Facts): string };
  /** The facts as the rows are now; null when they are gone (the change is skipped). */
  load(change: ChangeOf<K>, reads: ReplayReads): Promise<Facts | null>;
  present(change: ChangeOf<K>, facts: Facts): Event;
}

/** Checks a definition against its kind where it is written (the registry checks that every kind has one). */
export const defineKind = <K extends ChangeKind, Facts = undefined, Event extends LiveEvent = EventOf<K>>(
  _kind: K,
  definition: ChangeKindDefinition<K, Facts, Event>,
) => definition;

/** The load of a kind whose change says all its event does. */
export const nothingToLoad = async (): Promise<undefined> => undefined;
