/**
 * The database as the query builder sees it: each table's row shape, kept by area in schema/. Code imports them all
 * from here. Times are ms since the epoch (UTC).
 */
import type {
  EmailSendsTable,
  EmailTokensTable,
  PasswordResetsTable,
  PushSubscriptionsTable,
  SessionsTable,
  SubscriptionsTable,
  SubscriptionsTypesTable,
  UsersTable,
} from "./schema/accounts.ts";
import type {
  DateMessagesTable,
  DeletionNotesTable,
  ExpiredMessagesTable,
  MessagesTable,
  SpaceMembersTable,
  SpacesTable,
  UploadsTable,
  UserEventsTable,
} from "./schema/content.ts";
import type { ActivityHoursTable, AdminAuditCounterTable, AdminAuditTable, InvitesTable, ServerKeysTable } from "./schema/installation.ts";
import type { DeviceListTable, KeyEpochsTable, KeyRecoveryTable, KeyRequestsTable, KeyRosterTable, KeyWrapsTable } from "./schema/keys.ts";
import type { PaymentCheckoutsTable, PaymentCustomersTable, PaymentEventsTable, PaymentSubscriptionsTable } from "./schema/payments.ts";
import type {
  RoomEntriesTable,
  RoomGenerationsTable,
  RoomJoinRequestsTable,
  RoomOwnTable,
  RoomsTable,
  RoomWrapsTable,
} from "./schema/rooms.ts";
import type { AuthFlowsTable, IdentitiesTable, PairingRequestsTable } from "./schema/sign-in.ts";

export type * from "./schema/accounts.ts";
export type * from "./schema/content.ts";
export type * from "./schema/installation.ts";
export type * from "./schema/keys.ts";
export type * from "./schema/payments.ts";
export type * from "./schema/rooms.ts";
export type * from "./schema/sign-in.ts";

export interface Database {
  subscriptions_types: SubscriptionsTypesTable;
  users: UsersTable;
  subscriptions: SubscriptionsTable;
  sessions: SessionsTable;
  key_epochs: KeyEpochsTable;
  key_wraps: KeyWrapsTable;
  key_roster: KeyRosterTable;
  key_requests: KeyRequestsTable;
  key_recovery: KeyRecoveryTable;
  device_list: DeviceListTable;
  date_messages: DateMessagesTable;
  messages: MessagesTable;
  user_events: UserEventsTable;
  pairing_requests: PairingRequestsTable;
  push_subscriptions: PushSubscriptionsTable;
  uploads: UploadsTable;
  expired_messages: ExpiredMessagesTable;
  deletion_notes: DeletionNotesTable;
  server_keys: ServerKeysTable;
  spaces: SpacesTable;
  space_members: SpaceMembersTable;
  rooms: RoomsTable;
  room_generations: RoomGenerationsTable;
  room_entries: RoomEntriesTable;
  room_wraps: RoomWrapsTable;
  room_join_requests: RoomJoinRequestsTable;
  room_own: RoomOwnTable;
  identities: IdentitiesTable;
  auth_flows: AuthFlowsTable;
  admin_audit: AdminAuditTable;
  admin_audit_counter: AdminAuditCounterTable;
  invites: InvitesTable;
  password_resets: PasswordResetsTable;
  email_tokens: EmailTokensTable;
  email_sends: EmailSendsTable;
  activity_hours: ActivityHoursTable;
  payment_events: PaymentEventsTable;
  payment_customers: PaymentCustomersTable;
  payment_subscriptions: PaymentSubscriptionsTable;
  payment_checkouts: PaymentCheckoutsTable;
}
