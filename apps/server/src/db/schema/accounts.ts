/** Accounts: users and their plans, sessions (signed-in devices) with their push subscriptions, one-time mail links. */

export interface SubscriptionsTypesTable {
  id: number;
  title: string;
  description: string;
  max_message_duration: number | null;
  price_per_month: number;
  subscription_duration: number;
}

export interface UsersTable {
  id: string;
  name: string;
  email: string;
  password_hash: string;
  actual_subscription_id: string;
  /** Last sequence number given to a change of this user's data. */
  seq: number;
  created_at: number;
  updated_at: number;
  /** "admin" may use /admin and its routes. */
  role: "admin" | "user";
  /** Set while an admin has disabled the account: no sign-in, no session. */
  disabled_at: number | null;
  /** When the person opened a verification link sent to `email`; null until then (and again after a change of it). */
  email_verified_at: number | null;
  /** The account's current key epoch (decision 020); null until its first device made epoch 1. */
  key_epoch?: number | null;
  /** Set when a session holding the current epoch's key ended: the devices are to make the next epoch. */
  key_rotation_due_at?: number | null;
  /** A locked device asked to start over while another device held the key (decision 021): when, and which session. */
  key_start_over_at?: number | null;
  key_start_over_session_id?: string | null;
}

export interface SubscriptionsTable {
  id: string;
  user_id: string;
  subscription_type_id: number;
  title_subscription: string;
  description_subscription: string;
  /** Retention in minutes for this subscription; null is unlimited. */
  max_message_duration: number | null;
  price_per_month: number;
  subscription_duration: number;
  date_subscription: number;
  date_expiration_subscription: number;
  paid: number;
  id_transaction: string;
  payment_mode: string;
  created_at: number;
}

export interface SessionsTable {
  id: string;
  user_id: string;
  token_hash: string;
  user_agent: string;
  ip: string;
  created_at: number;
  last_seen_at: number;
  /** The name the user gave the device; null: named from its User-Agent. */
  name: string | null;
  /** When this session last passed a fresh check at a provider (Settings); null: never. */
  reauthenticated_at?: number | null;
  /** The device's public key (base64url), sent once and never replaced (decision 020); null until then. */
  public_key?: string | null;
  /** base64url of the first 16 bytes of SHA-256 of the raw public key, computed here; wraps are addressed by it. */
  key_id?: string | null;
  /** The device's Ed25519 signing key for the signed device list (issue 41), set once; null until then. */
  signing_key?: string | null;
}

/** A Web Push subscription of one signed-in device; it goes when that session ends. */
export interface PushSubscriptionsTable {
  id: string;
  user_id: string;
  session_id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  created_at: number;
}

/** A one-time link to set a new password: only the sha256 of its token is kept. */
export interface PasswordResetsTable {
  token_hash: string;
  user_id: string;
  created_at: number;
  expires_at: number;
}

/** A one-time link sent by mail (issue 26): only the sha256 of its token; `email` is the address it was sent to. */
export interface EmailTokensTable {
  token_hash: string;
  user_id: string;
  purpose: "verify_email" | "sign_in";
  email: string;
  created_at: number;
  expires_at: number;
}

/** One mail sent to an account, for the per-account limit; rows older than its window are pruned. */
export interface EmailSendsTable {
  id: string;
  user_id: string;
  kind: string;
  sent_at: number;
}
