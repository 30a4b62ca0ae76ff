/** Encrypted discussions (docs/protocol/encryption.md, "Encrypted discussions"): all opaque to the server. */

/** A discussion that is encrypted: its sealed title, its current key generation, whether typed-ID joining is on. */
export interface RoomsTable {
  space_id: string;
  sealed_title: string;
  current_generation: number;
  /** 1: a typed ID may ask to join; 0: the creator turned it off. */
  id_joining: number;
}

/** A generation of a room's key, once taken (the first rotation to n+1 wins); `made_by` is a member key id. */
export interface RoomGenerationsTable {
  space_id: string;
  generation: number;
  made_by: string | null;
  created_at: number;
}

/** A member's entry in one generation, as its device tagged it, with which member and account it is. */
export interface RoomEntriesTable {
  space_id: string;
  generation: number;
  key_id: string;
  public_key: string;
  name_tag: string;
  added_by: string | null;
  admission: string;
  admission_id: string;
  tag: string;
  sealed_name: string;
  member_id: string;
  user_id: string;
  created_at: number;
}

/** A room key wrapped for one member key; `handover_tag` on an admission's wraps. */
export interface RoomWrapsTable {
  space_id: string;
  generation: number;
  recipient_key_id: string;
  sender_key_id: string;
  enc: string;
  ciphertext: string;
  handover_tag: string | null;
  created_at: number;
}

/** `refused`: the joiner's device found the answer wrong (the code typed was not the one it shows); closed. */
export type JoinRequestState = "open" | "answered" | "confirmed" | "admitted" | "refused";

/** A joiner by typed ID and the exchange the server relays between it and the one member who answers. */
export interface RoomJoinRequestsTable {
  id: string;
  space_id: string;
  user_id: string;
  name: string;
  joiner_key_id: string;
  joiner_public_key: string;
  share: string;
  member_user_id: string | null;
  member_key_id: string | null;
  member_public_key: string | null;
  answer_share: string | null;
  answer_confirmation: string | null;
  joiner_confirmation: string | null;
  handover_tag: string | null;
  state: JoinRequestState;
  created_at: number;
  expires_at: number;
}

/** An account's member seed (generation 0) and room keys sealed for its own devices (`v1.<account epoch>.…`). */
export interface RoomOwnTable {
  user_id: string;
  space_id: string;
  generation: number;
  value: string;
}
