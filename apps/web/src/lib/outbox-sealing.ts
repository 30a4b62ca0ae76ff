/**
 * How the outbox (lib/outbox.ts) seals and sends: the account's key for the user's days, a room's for a discussion,
 * and the roads a sealed message and a deletion of the user's days take to the server. app/ wires them.
 */
import type { DateMessages, DeletedResponse, DiscussionMessage, Message, SendMessageInput, SendSealedMessageInput } from "@daysync/shared";

/**
 * How a message to the user's own days is sealed at each try (docs/protocol/encryption.md, "Sealed messages"): under the account's
 * current epoch, so a retry after a rotation is sealed again under the next one.
 */
export interface MessageSealing {
  /** The sealed body, or why it waits: a sentence to show, or none while this device is still finding its keys. */
  seal(message: SendMessageInput): Promise<{ body: SendSealedMessageInput } | { waiting: string | undefined }>;
  /** The server said the account's key moved on (409): catch up before sealing again. */
  catchUp(): Promise<void>;
  /** The server stored the message: its number is no longer under way. */
  stored?(id: string): Promise<void>;
  /** Before a message of the user's days is deleted: the sealed note of its number (lib/deletion-notes.ts). */
  noteDeletion?(id: string): Promise<void>;
  /**
   * A text to a discussion sealed under its room key and posted (lib/sealing/rooms.ts), or why it waits; null for a
   * discussion in clear, whose text is posted as it is.
   */
  sendToRoom?(discussionId: string, message: SendMessageInput): Promise<DiscussionMessage | { waiting: string | undefined } | null>;
}

/** How a sealed message to the user's days reaches the server: the live socket while it is current, else HTTP. */
export type SendOwn = (body: SendSealedMessageInput) => Promise<{ message: Message; day: DateMessages }>;

/** How a deletion of a message of the user's days reaches the server: likewise; a 404 (gone already) as an ApiError. */
export type DeleteOwn = (id: string) => Promise<DeletedResponse>;
