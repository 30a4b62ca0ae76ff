/** Every repository over one database: what the composition root injects into services. */
import type { Db } from "../db/database.ts";
import { createChangesRepository } from "../feed/changes.repository.ts";
import { keyStateRowsOfKeys } from "../modules/accounts/key-state.repository.ts";
import { createPasswordResetsRepository } from "../modules/accounts/password-resets.repository.ts";
import { createSessionsRepository } from "../modules/accounts/sessions.repository.ts";
import { userLogRowsOfFeed } from "../modules/accounts/user-log.repository.ts";
import { createUsersRepository } from "../modules/accounts/users.repository.ts";
import { createAdminRepository } from "../modules/admin/admin.repository.ts";
import { createDevicesRepository } from "../modules/devices/devices.repository.ts";
import { createDiscussionMessagesRepository } from "../modules/discussions/discussion-messages.repository.ts";
import { createDiscussionsRepository } from "../modules/discussions/discussions.repository.ts";
import { createRoomsRepository } from "../modules/discussions/rooms.repository.ts";
import { createEmailRepository } from "../modules/email/email.repository.ts";
import { createIdentitiesRepository } from "../modules/identities/identities.repository.ts";
import { createInvitesRepository } from "../modules/invites/invites.repository.ts";
import { createDeviceListRepository } from "../modules/keys/device-list.repository.ts";
import { createKeyRecoveryRepository } from "../modules/keys/key-recovery.repository.ts";
import { createKeyRequestsRepository } from "../modules/keys/key-requests.repository.ts";
import { createKeysRepository } from "../modules/keys/keys.repository.ts";
import { createMessagesRepository } from "../modules/messages/messages.repository.ts";
import { createPairingRepository } from "../modules/pairing/pairing.repository.ts";
import { createPaymentsRepository } from "../modules/payments/payments.repository.ts";
import { createPlansRepository } from "../modules/plans/plans.repository.ts";
import { createPushSubscriptionsRepository } from "../modules/push/push-subscriptions.repository.ts";
import { createServerKeysRepository } from "../modules/server-keys/server-keys.repository.ts";
import { createAccessRepository } from "../modules/spaces/access.repository.ts";
import { createSpacesRepository, spaceLockOfFeed } from "../modules/spaces/spaces.repository.ts";
import { createUploadsRepository } from "../modules/uploads/uploads.repository.ts";

/** The feed's writes to rows of modules above it, which those modules own. */
export const feedRows = { users: userLogRowsOfFeed, spaces: spaceLockOfFeed };

export function createRepositories(db: Db) {
  return {
    users: createUsersRepository(db),
    plans: createPlansRepository(db),
    sessions: createSessionsRepository(db),
    identities: createIdentitiesRepository(db),
    devices: createDevicesRepository(db, keyStateRowsOfKeys),
    pairingRequests: createPairingRepository(db),
    pushSubscriptions: createPushSubscriptionsRepository(db),
    serverKeys: createServerKeysRepository(db),
    uploads: createUploadsRepository(db),
    messages: createMessagesRepository(db),
    changes: createChangesRepository(db, feedRows),
    access: createAccessRepository(db),
    spaces: createSpacesRepository(db),
    discussionMessages: createDiscussionMessagesRepository(db),
    discussions: createDiscussionsRepository(db),
    rooms: createRoomsRepository(db),
    admin: createAdminRepository(db),
    passwordResets: createPasswordResetsRepository(db),
    invites: createInvitesRepository(db),
    payments: createPaymentsRepository(db),
    email: createEmailRepository(db),
    keys: createKeysRepository(db, keyStateRowsOfKeys),
    deviceList: createDeviceListRepository(db, keyStateRowsOfKeys),
    keyRequests: createKeyRequestsRepository(db),
    keyRecovery: createKeyRecoveryRepository(db),
  };
}

export type Repositories = ReturnType<typeof createRepositories>;
