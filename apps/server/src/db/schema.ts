/** Table shapes for the query builder. Times are ms since the epoch (UTC). */
import type { DepartureReason, DiscussionRole } from "@daysync/shared";

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
}

export interface DateMessagesTable {
  id: string;
  user_id: string;
  date: string;
  /** yyyy-mm-dd of `date`, for ordering and uniqueness per user. */
  day_key: string;
  last_message_time: string;
  last_message_type: string;
  last_message: string;
  count_messages: number;
  created_at: number;
  updated_at: number;
}

/**
 * Where messages and files belong (decision 016): a user's personal space (its id is the user's id; it has one
 * member, its owner, and follows the owner's plan) or a discussion (shared, ends at `ends_at`).
 */
export interface SpacesTable {
  id: string;
  kind: "personal" | "discussion";
  /** A discussion's title; "" for a personal space. */
  title: string;
  /** A discussion's ID to read out and type: 10 characters of Crockford base32. Null for a personal space. */
  public_id: string | null;
  created_by: string;
  created_at: number;
  updated_at: number;
  /** When a discussion ends and is deleted; null for a personal space. */
  ends_at: number | null;
}

/** Who may read and write a space. `id` is what other members may know of a member; never the user id. */
export interface SpaceMembersTable {
  id: string;
  space_id: string;
  user_id: string;
  /** The name the member chose for this discussion; the only name other members see. */
  display_name: string;
  role: DiscussionRole;
  joined_at: number;
  /** Messages created after this are unread for the member. */
  last_read_at: number;
  /**
   * Set when the member left or was removed: the row stays so their messages keep their name, but it grants
   * nothing. One who left may join again (the row is reused); one who was removed may not.
   */
  left_at: number | null;
  left_reason: DepartureReason | null;
}

export interface MessagesTable {
  id: string;
  space_id: string;
  /** The author. */
  user_id: string;
  /** The day of a personal space's message; null in a discussion. */
  date_message_id: string | null;
  type: string;
  content: string;
  filename: string;
  file_url: string;
  date: string;
  time: string;
  url: string;
  created_at: number;
  /** A file message's size in bytes; null for text, and for files stored before this column. */
  file_size: number | null;
  /** The session that sent it (it may have ended since); null for messages older than this column. */
  device_id: string | null;
  /** That device's name, as last known: updated when the device is renamed, kept once it is signed out. */
  device_name: string | null;
}

/**
 * Ids of messages the retention sweep deleted, so that a late retry of one is refused (410) instead of
 * storing it again as new. Forgotten with the change log, long after such a retry could pass the date check.
 */
export interface ExpiredMessagesTable {
  id: string;
  user_id: string;
  space_id: string;
  expired_at: number;
}

/** The per-user change log the live connection replays from. It holds references, never content. */
export interface UserEventsTable {
  user_id: string;
  seq: number;
  kind: string;
  ref: string;
  created_at: number;
}

/** A finished upload: the stored file behind a file message. The bytes live in storage under `id`. */
export interface UploadsTable {
  id: string;
  /** The uploader. */
  user_id: string;
  space_id: string;
  message_id: string;
  /** The name the file had on the device; only for display and the download's file name. */
  filename: string;
  mime: string;
  size: number;
  created_at: number;
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
  status: "offered" | "pending" | "approved" | "denied" | "used";
  created_at: number;
  expires_at: number;
  /** The approver's account: the one the asking device is signed in to. */
  user_id: string | null;
  decided_at: number | null;
  token_hash: string | null;
  token_expires_at: number | null;
  /** Add a device: the session that showed the code; only it may approve. Null for a request made by the new device. */
  offered_by: string | null;
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

/** Secrets all processes of one installation share, such as the VAPID key pair; `value` is JSON. */
export interface ServerKeysTable {
  name: string;
  value: string;
  created_at: number;
}

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
  expires_at: number;
}

/** Every admin action, shown on /admin. Labels keep who and whom by email at the time; a deleted account's are erased. */
export interface AdminAuditTable {
  id: string;
  /** Order of writing: entries made in one millisecond still list in the order they happened. */
  seq: number;
  at: number;
  /** The admin; null for the command line or an admin since deleted. */
  actor_id: string | null;
  actor_label: string;
  action: string;
  target_id: string | null;
  target_label: string;
  detail: string;
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

/** Messages and files sent per hour (its start, ms), for the admin page's figures; each process adds its counts. */
export interface ActivityHoursTable {
  hour: number;
  messages: number;
  files: number;
}

export interface Database {
  subscriptions_types: SubscriptionsTypesTable;
  users: UsersTable;
  subscriptions: SubscriptionsTable;
  sessions: SessionsTable;
  date_messages: DateMessagesTable;
  messages: MessagesTable;
  user_events: UserEventsTable;
  pairing_requests: PairingRequestsTable;
  push_subscriptions: PushSubscriptionsTable;
  uploads: UploadsTable;
  expired_messages: ExpiredMessagesTable;
  server_keys: ServerKeysTable;
  spaces: SpacesTable;
  space_members: SpaceMembersTable;
  identities: IdentitiesTable;
  auth_flows: AuthFlowsTable;
  admin_audit: AdminAuditTable;
  password_resets: PasswordResetsTable;
  email_tokens: EmailTokensTable;
  email_sends: EmailSendsTable;
  activity_hours: ActivityHoursTable;
  payment_events: PaymentEventsTable;
  payment_customers: PaymentCustomersTable;
  payment_subscriptions: PaymentSubscriptionsTable;
  payment_checkouts: PaymentCheckoutsTable;
}

/** A Stripe event handled: stored in the transaction of what it grants, so a repeated event grants nothing more. */
export interface PaymentEventsTable {
  id: string;
  type: string;
  received_at: number;
}

/** The Stripe customer of a user (made at their first checkout). */
export interface PaymentCustomersTable {
  user_id: string;
  customer_id: string;
  created_at: number;
}

/** A Stripe subscription as last read from Stripe. */
export interface PaymentSubscriptionsTable {
  id: string;
  user_id: string;
  status: string;
  /** ms since the epoch. */
  current_period_end: number;
  updated_at: number;
}

/** A paid Checkout session whose purchase was granted: the webhook and the success page grant it once between them. */
export interface PaymentCheckoutsTable {
  id: string;
  user_id: string;
  kind: "premium" | "extension";
  space_id: string | null;
  days: number | null;
  amount: number;
  currency: string;
  granted_at: number;
}
