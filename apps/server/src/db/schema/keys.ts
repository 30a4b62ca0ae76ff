/** The account keys of decision 020: epochs, their wraps and roster, and check-code requests. */

/** One numbered account key (decision 020); the server never holds the key itself, only its wraps. */
export interface KeyEpochsTable {
  user_id: string;
  epoch: number;
  /** The session that made it (it may have ended since). */
  created_by_session_id: string;
  reason: "first" | "rotation" | "start_over";
  created_at: number;
}

/** An epoch key sealed (HPKE) for one recipient key; opaque base64url to the server. */
export interface KeyWrapsTable {
  user_id: string;
  epoch: number;
  recipient_key_id: string;
  /** The sealing device's key id, for `auth` mode; null otherwise. */
  sender_key_id: string | null;
  mode: "psk" | "auth" | "base";
  enc: string;
  ciphertext: string;
  created_at: number;
}

/** A key the account trusts in an epoch; `tag` is an HMAC only holders of the epoch key can make. */
export interface KeyRosterTable {
  user_id: string;
  epoch: number;
  key_id: string;
  public_key: string;
  kind: "device" | "recovery";
  added_by_key_id: string | null;
  added_at: number;
  tag: string;
}

/** A locked device's request to be approved by check code (docs/protocol/encryption.md, "Approving a device"). */
export interface KeyRequestsTable {
  id: string;
  user_id: string;
  /** The requesting (locked) session. */
  session_id: string;
  /** Its CPace share for the code it shows (docs/protocol/encryption.md), base64url. */
  requester_share: string;
  /** The one device answering now; null while pending (and again after a wrong code). */
  approver_session_id: string | null;
  approver_share: string | null;
  approver_confirmation: string | null;
  /** The asking device's confirmation, once the codes matched. */
  requester_confirmation: string | null;
  /** The approver's tag over its handover, once approved. */
  handover_confirmation: string | null;
  /** Wrong codes so far; the third ends the request as failed. */
  failures: number;
  status: KeyRequestStatus;
  created_at: number;
  expires_at: number;
}

export type KeyRequestStatus = "pending" | "answered" | "confirmed" | "approved" | "denied" | "expired" | "failed";

/** An account's recovery key: its roster rows and wraps are in key_roster and key_wraps, addressed by `key_id`. */
export interface KeyRecoveryTable {
  user_id: string;
  key_id: string;
  public_key: string;
  /** The epoch whose key the anchor seals: the current one when the code was made. */
  anchor_epoch: number;
  /** base64url(nonce ‖ sealed epoch key ‖ tag), sealed with the anchor key the code gives. */
  anchor: string;
  /** base64url of SHA-256 of the proof derived from the code. */
  proof_hash: string;
  created_by_session_id: string;
  created_at: number;
}

/** One entry of an account's signed device list (issue 41); the server checks only that it extends the head. */
export interface DeviceListTable {
  user_id: string;
  seq: number;
  prev: string | null;
  kind: "add" | "remove";
  key_id: string;
  public_key: string;
  signing_key: string;
  signer_key_id: string;
  signature: string;
  /** base64url SHA-256 of the entry as the devices hash it: the next entry's `prev`. */
  hash: string;
  created_by_session_id: string;
  created_at: number;
}
