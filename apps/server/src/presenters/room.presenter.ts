/** What leaves the server of an encrypted discussion: its opaque rows, never an account's user id. */
import type { JoinRequestAnswer, RoomEntryInput, RoomState } from "@daysync/shared";
import type {
  RoomEntriesTable,
  RoomGenerationsTable,
  RoomJoinRequestsTable,
  RoomOwnTable,
  RoomsTable,
  RoomWrapsTable,
} from "../db/schema.ts";

export const presentEntry = (e: RoomEntriesTable): RoomEntryInput => ({
  key_id: e.key_id,
  public_key: e.public_key,
  name_tag: e.name_tag,
  added_by: e.added_by,
  admission: e.admission as RoomEntryInput["admission"],
  admission_id: e.admission_id,
  tag: e.tag,
  sealed_name: e.sealed_name,
});

export const presentWrap = (w: RoomWrapsTable) => ({
  generation: Number(w.generation),
  recipient_key_id: w.recipient_key_id,
  sender_key_id: w.sender_key_id,
  enc: w.enc,
  ciphertext: w.ciphertext,
  handover_tag: w.handover_tag,
});

export function presentRoom(rows: {
  room: RoomsTable;
  space: { id: string; public_id: string; created_at: number; ends_at: number };
  generations: RoomGenerationsTable[];
  entries: RoomEntriesTable[];
  /** Member ids of the active members. */
  active: ReadonlySet<string>;
  wraps: RoomWrapsTable[];
  own: Array<Pick<RoomOwnTable, "generation" | "value">>;
  memberId: string;
}): RoomState {
  const { room, space } = rows;
  return {
    id: space.id,
    public_id: space.public_id,
    sealed_title: room.sealed_title,
    current_generation: Number(room.current_generation),
    id_joining: Number(room.id_joining) === 1,
    created_at: Number(space.created_at),
    ends_at: Number(space.ends_at),
    member_id: rows.memberId,
    generations: rows.generations.map((g) => ({
      generation: Number(g.generation),
      made_by: g.made_by,
      entries: rows.entries
        .filter((e) => Number(e.generation) === Number(g.generation))
        .map((e) => ({ ...presentEntry(e), member_id: e.member_id, left: !rows.active.has(e.member_id) })),
    })),
    wraps: rows.wraps.map(presentWrap),
    own: rows.own.map((o) => ({ generation: Number(o.generation), value: o.value })),
  };
}

/** A join request as the joiner and the members see it; once admitted, with the joiner's entry and wraps. */
export function presentJoinRequest(
  r: RoomJoinRequestsTable,
  admitted: { entry: RoomEntriesTable | undefined; wraps: RoomWrapsTable[] } = { entry: undefined, wraps: [] },
): JoinRequestAnswer {
  return {
    id: r.id,
    discussion_id: r.space_id,
    name: r.name,
    joiner_key_id: r.joiner_key_id,
    joiner_public_key: r.joiner_public_key,
    share: r.share,
    member_key_id: r.member_key_id,
    member_public_key: r.member_public_key,
    answer_share: r.answer_share,
    answer_confirmation: r.answer_confirmation,
    joiner_confirmation: r.joiner_confirmation,
    state: r.state,
    entry: admitted.entry ? presentEntry(admitted.entry) : null,
    wraps: admitted.wraps.map((w) => {
      const { handover_tag: _tag, ...wrap } = presentWrap(w);
      return wrap;
    }),
    handover_tag: r.handover_tag,
    created_at: Number(r.created_at),
    expires_at: Number(r.expires_at),
  };
}
