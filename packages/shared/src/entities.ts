/** Entities as they travel in the API's JSON; field names are the spec's. Inferred from their schemas in `responses.ts` and `account-responses.ts`. */
import type { z } from "zod";
import type { apiErrorBodySchema, userSchema } from "./account-responses.ts";
import type { daySchema, messageSchema, messageTypeSchema, searchResultSchema } from "./responses.ts";

export type MessageType = z.infer<typeof messageTypeSchema>;
export type User = z.infer<typeof userSchema>;
/** A user's calendar day and its summary of unexpired messages (`daySchema`). */
export type DateMessages = z.infer<typeof daySchema>;
export type Message = z.infer<typeof messageSchema>;
export type SearchResult = z.infer<typeof searchResultSchema>;
/** Every error the API returns has this body. */
export type ApiErrorBody = z.infer<typeof apiErrorBodySchema>;

/** Error codes the app acts on, beyond showing their sentence. */
export const API_ERROR_CODES = {
  /** 410 to a retried send: that message was stored, then expired or was deleted; it is gone for good. */
  expired: "expired",
  /** 403: only a Premium member may do this (extend a discussion). */
  premiumRequired: "premium_required",
  /** 409 to a join: the discussion has its maximum of members. */
  discussionFull: "discussion_full",
  /** 409 to a join (field `display_name`): another member of the discussion goes by the same name. */
  displayNameTaken: "display_name_taken",
  /** 409 to the creator's leave: a creator ends the discussion instead. */
  ownerCannotLeave: "owner_cannot_leave",
  /** 409 to an extension that would end the discussion more than `DISCUSSION_MAX_AHEAD_DAYS` from now. */
  extensionTooFar: "extension_too_far",
  /** 409 to a sealed send: a device left and the account's key is being replaced; seal it again once it is. */
  keyRotationDue: "key_rotation_due",
  /** 409 to a sealed send: it was sealed under another epoch than the account's current one. */
  keyEpochChanged: "key_epoch_changed",
  /** 409 to a text sent in clear into the personal space of an account that has a key: devices seal what they send. */
  encryptionRequired: "encryption_required",
} as const;
