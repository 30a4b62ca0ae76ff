/** The messages module as others see it: sending (for finished files), the one deletion path, the rows. */
export { deleteUserMessages } from "./message-deletion.ts";
export { eraseMessagesOfAccount, type MessagesRepository } from "./messages.repository.ts";
export { assertPlausibleDay, type DiscussionSendInput, type MessagesService, type SendInput } from "./messages.service.ts";
export type { OwnDelete } from "./own-delete.ts";
export type { OwnSend } from "./own-send.ts";
export { assertSealedUnderCurrentEpoch, encryptionRequired } from "./sealed-epoch.ts";
