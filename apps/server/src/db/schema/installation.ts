/** What belongs to the installation rather than to one account: shared secrets, the admin audit, activity figures. */

/** Secrets all processes of one installation share, such as the VAPID key pair; `value` is JSON. */
export interface ServerKeysTable {
  name: string;
  value: string;
  created_at: number;
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

/** The admin audit's last number (one row, id 1): each entry takes the next by one upsert (migration 026). */
export interface AdminAuditCounterTable {
  id: number;
  value: number;
}

/** Messages and files sent per hour (its start, ms), for the admin page's figures; each process adds its counts. */
export interface ActivityHoursTable {
  hour: number;
  messages: number;
  files: number;
}

/** One-time invite links to register (REGISTRATION=invite): only the SHA-256 of the link's token is kept. */
export interface InvitesTable {
  id: string;
  token_hash: string;
  /** The admin who made it; null for the command line or an admin since deleted. */
  created_by: string | null;
  created_at: number;
  expires_at: number;
  /** Set once, by the registration that used it. */
  used_at: number | null;
  used_by: string | null;
}
