/**
 * Every kind of change, each defined once (`kind.ts`): the log writes and reads refs through it, the unit of work
 * presents a recorded change with it, and a replay loads and presents a logged one with it. A kind of live event
 * without a definition here fails the typecheck.
 */
import type { ServerLiveEvent as LiveEvent } from "@daysync/shared";
import type { Change, ChangeKind, StoredChange } from "../change.ts";
import { accountKinds } from "./account.ts";
import { dayMessageKinds } from "./day-messages.ts";
import { discussionKinds } from "./discussions.ts";
import { keyKinds } from "./keys.ts";
import type { ChangeKindDefinition, ChangeOf, ReplayReads } from "./kind.ts";
import { roomKinds } from "./rooms.ts";

export type { ReplayReads } from "./kind.ts";

export const changeKinds = {
  ...dayMessageKinds,
  ...accountKinds,
  ...discussionKinds,
  ...keyKinds,
  ...roomKinds,
} satisfies { [K in ChangeKind]: ChangeKindDefinition<K, unknown, LiveEvent> };

/** Every kind of change there is. */
export const allChangeKinds = Object.keys(changeKinds) as ChangeKind[];

/** The facts a kind's event is built from (`undefined`: the change says all). */
export type FactsOf<K extends ChangeKind> = Parameters<(typeof changeKinds)[K]["present"]>[1];

/** What `record` takes after a change: its facts, or nothing for a kind whose change says all. */
export type FactsArgs<K extends ChangeKind> = K extends ChangeKind ? ([FactsOf<K>] extends [undefined] ? [] : [facts: FactsOf<K>]) : never;

/** The definition of a change's kind, widened so one code path serves every kind. */
const definitionOf = <K extends ChangeKind>(kind: K) =>
  changeKinds[kind] as unknown as ChangeKindDefinition<ChangeKind, unknown, LiveEvent> & {
    parse(ref: string, kind: K): ChangeOf<K> | undefined;
  };

/** The ref the log keeps of a change. */
export const refOf = (change: Change): string => definitionOf(change.kind).ref(change);

/** Reads a logged change back; undefined for a kind or ref this version cannot read (it is skipped, not served). */
export function changeOf(stored: { kind: string; ref: string }): Change | undefined {
  if (!Object.hasOwn(changeKinds, stored.kind)) return undefined;
  const kind = stored.kind as StoredChange["kind"];
  return definitionOf(kind).parse(stored.ref, kind);
}

/** The live event of a change being recorded, from the facts the service holds. */
export const liveEventOf = (change: Change, facts: unknown): LiveEvent => definitionOf(change.kind).present(change, facts);

/**
 * The event a logged change is replayed as, from the current rows; undefined when they are gone or the user may no
 * longer read the space it is in.
 */
export async function replayedEvent(change: Change, reads: ReplayReads): Promise<LiveEvent | undefined> {
  const definition = definitionOf(change.kind);
  const facts = await definition.load(change, reads);
  if (facts === null) return undefined;
  if (definition.access !== "own" && !(await reads.mayRead(definition.access.space(change, facts)))) return undefined;
  return definition.present(change, facts);
}
