/** Ways in besides a password: identities at providers, their sign-in flows, and pairing by a connected device. */

/** A provider's account linked to a user: (issuer, subject) is unique; `provider` is the configured id. */
export interface IdentitiesTable {
  id: string;
  user_id: string;
  provider: string;
  issuer: string;
  subject: string;
  /** The email the provider gave when it was linked, to show in the list of sign-in methods. */
  email: string;
  created_at: number;
}

/** A started sign-in through a provider, until its callback consumes it (at most 10 minutes). */
export interface AuthFlowsTable {
  /** Random; the browser that started the flow holds it in a cookie. */
  id: string;
  provider: string;
  state: string;
  nonce: string;
  code_verifier: string;
  return_to: string;
  /** Set when a signed-in user links this provider to their account. */
  link_user_id: string | null;
  /** Set when the flow is a fresh check of that session's person (with `link_user_id`), not a link. */
  confirm_session_id?: string | null;
  /** The invite link a sign-up started from (REGISTRATION=invite); the account it makes uses it up. */
  invite?: string | null;
  expires_at: number;
}

/**
 * Sign-in by a connected device: one row per QR code shown; single use, short-lived. A row made by Add a device
 * (decision 013) starts as "offered", with `offered_by` set, and becomes "pending" when the new device opens it.
 */
export interface PairingRequestsTable {
  id: string;
  /** sha256 of the QR's random code; the code itself is never stored. */
  code_hash: string;
  short_code: string;
  /** sha256 of the secret only the asking device holds. */
  secret_hash: string;
  user_agent: string;
  ip: string;
  /** "answered", "confirmed" and "failed": a typed code's exchange (migration 029). */
  status: "offered" | "pending" | "answered" | "confirmed" | "approved" | "denied" | "failed" | "used";
  created_at: number;
  expires_at: number;
  /** The approver's account: the one the asking device is signed in to. */
  user_id: string | null;
  decided_at: number | null;
  token_hash: string | null;
  token_expires_at: number | null;
  /** Add a device: the session that showed the code; only it may approve. Null for a request made by the new device. */
  offered_by: string | null;
  /** The asking device's public key and its proof of the QR link's secret (docs/protocol/encryption.md, "QR pairing handover"); null without. */
  public_key: string | null;
  key_proof: string | null;
  /** The approval's key handover (`PairingHandover` as JSON), until the exchange moves it into key_wraps and key_roster. */
  handover: string | null;
  /** A typed code's exchange (docs/protocol/encryption.md, "QR pairing handover"): the new device's CPace share, */
  requester_share: string | null;
  /** the session answering it with its key, share and confirmation, */
  answered_by: string | null;
  approver_key_id: string | null;
  approver_public_key: string | null;
  approver_share: string | null;
  approver_confirmation: string | null;
  /** the new device's confirmation, the handover's tag and the wrong codes so far. */
  requester_confirmation: string | null;
  handover_confirmation: string | null;
  failures: number;
  /** The session that approved (for an offer, the one that made it): the approval ends with it. Null until answered. */
  approved_by: string | null;
}
