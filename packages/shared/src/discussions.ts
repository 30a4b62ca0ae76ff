/**
 * Discussions (issue 13, decision 016): short-lived shared spaces of signed-in users, joined by link, QR code or
 * ID. Members know each other only by the display name each chose for the discussion and by an opaque member id;
 * nothing the server sends to a member holds another member's email, user id or device name.
 *
 * A non-member (a wrong ID, an ended discussion, one the caller left or was removed from) gets the same 404 from
 * every route and nothing on the live socket.
 */
import { z } from "zod";
import { DISCUSSION_EXTENSION_DAYS } from "./discussion-limits.ts";
import type {
  discussionDetailsSchema,
  discussionMemberSchema,
  discussionMessageSchema,
  discussionSchema,
  myDiscussionSchema,
} from "./responses.ts";
import { sendMessageSchema } from "./schemas.ts";
import { chosenName, text } from "./text.ts";

export const DISCUSSIONS_API = {
  /** GET: the caller's open discussions (`{ discussions: MyDiscussion[] }`). POST `CreateDiscussionInput`: a new one. */
  list: "/api/discussions",
  /** GET: the discussion with its members. PATCH `{ title }`: rename (creator). DELETE: end it now (creator). */
  one: (id: string) => `/api/discussions/${encodeURIComponent(id)}`,
  /** GET: its live messages, oldest first. POST `SendMessageInput`: a text message (idempotent by id, as in a day). */
  messages: (id: string) => `/api/discussions/${encodeURIComponent(id)}/messages`,
  /** DELETE: deletes one message for every member (its author, or the creator). */
  message: (id: string, messageId: string) => `/api/discussions/${encodeURIComponent(id)}/messages/${encodeURIComponent(messageId)}`,
  /** POST `{ display_name }` by ID (any accepted spelling): join. Rate-limited per address and per session. */
  join: (publicId: string) => `/api/discussions/join/${encodeURIComponent(publicId)}`,
  /** POST: the caller leaves (the creator ends it instead). */
  leave: (id: string) => `/api/discussions/${encodeURIComponent(id)}/leave`,
  /** DELETE: the creator removes a member (by member id). */
  member: (id: string, memberId: string) => `/api/discussions/${encodeURIComponent(id)}/members/${encodeURIComponent(memberId)}`,
  /** POST `{ days: 7 | 30 }`: a premium member extends it from its current end; 403 on the Free plan, 409 past 90 days from now. */
  extend: (id: string) => `/api/discussions/${encodeURIComponent(id)}/extend`,
  /** POST: everything up to now is read (the unread count drops to 0). */
  read: (id: string) => `/api/discussions/${encodeURIComponent(id)}/read`,
} as const;

/** App routes. The join link is the only thing a discussion's QR code holds; it can never sign a device in. */
export const DISCUSSION_ROUTES = {
  new: "/discussions/new",
  one: (id: string) => `/discussions/${encodeURIComponent(id)}`,
  join: (publicId: string) => `/discussions/join/${encodeURIComponent(publicId)}`,
} as const;

export const DEFAULT_MAX_DISCUSSION_MEMBERS = 50;
export const DISCUSSION_TITLE_MAX = 80;
export const DISPLAY_NAME_MAX = 40;

/** Crockford base32: no I, L, O or U, so an ID read out loud is typed right. */
export const PUBLIC_ID_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
export const PUBLIC_ID_LENGTH = 10;

/**
 * The ID as stored (10 capitals of the alphabet) from what a person typed: case, spaces and hyphens do not
 * matter, and I/L read as 1 and O as 0 (Crockford's decoding). Null when it cannot be an ID.
 */
export function normalizePublicId(typed: string): string | null {
  const id = typed.toUpperCase().replace(/[\s-]/g, "").replace(/[IL]/g, "1").replace(/O/g, "0");
  if (id.length !== PUBLIC_ID_LENGTH) return null;
  for (const c of id) if (!PUBLIC_ID_ALPHABET.includes(c)) return null;
  return id;
}

/** ABCDE-FGHJK, as shown and read out. */
export const formatPublicId = (id: string) => `${id.slice(0, 5)}-${id.slice(5)}`;

const title = chosenName("A title", "Enter a title.")
  .trim()
  .min(1, "Enter a title.")
  .max(DISCUSSION_TITLE_MAX, `A title is at most ${DISCUSSION_TITLE_MAX} characters.`);

const displayName = chosenName("A display name", "Enter the name the others will see.")
  .trim()
  .min(1, "Enter the name the others will see.")
  .max(DISPLAY_NAME_MAX, `A display name is at most ${DISPLAY_NAME_MAX} characters.`);

/**
 * What must differ between two members' display names in one discussion, so that no one can pass for another:
 * the name after NFKC (full-width and styled letters read as the plain ones), with case folded (upper then lower
 * case, so "ß" meets "SS") and without whitespace or invisible characters.
 */
export function displayNameKey(name: string): string {
  return name
    .normalize("NFKC")
    .toUpperCase()
    .toLowerCase()
    .normalize("NFKC")
    .replace(/[\s\p{Default_Ignorable_Code_Point}]/gu, "");
}

export const createDiscussionSchema = z.object({ title, display_name: displayName });
export type CreateDiscussionInput = z.infer<typeof createDiscussionSchema>;

export const joinDiscussionSchema = z.object({ display_name: displayName });
export type JoinDiscussionInput = z.infer<typeof joinDiscussionSchema>;

export const renameDiscussionSchema = z.object({ title });
export type RenameDiscussionInput = z.infer<typeof renameDiscussionSchema>;

export const extendDiscussionSchema = z.object({
  days: z.literal([...DISCUSSION_EXTENSION_DAYS], { error: "days must be 7 or 30." }),
});
export type ExtendDiscussionInput = z.infer<typeof extendDiscussionSchema>;

/** A message in a discussion: the same contract as in a day. */
export const sendDiscussionMessageSchema = sendMessageSchema;

export const discussionIdParamsSchema = z.object({ id: z.uuid("Discussion id must be a UUID.") });
export const discussionMessageParamsSchema = z.object({
  id: z.uuid("Discussion id must be a UUID."),
  messageId: z.uuid("Message id must be a UUID."),
});
export const discussionMemberParamsSchema = z.object({
  id: z.uuid("Discussion id must be a UUID."),
  memberId: text("Member id").min(1).max(64, "Member id is too long."),
});
/** Any spelling is accepted here; a wrong one is the same 404 as an unknown ID. */
export const publicIdParamsSchema = z.object({
  publicId: text("An ID").max(64, "That ID is too long."),
});

export type Discussion = z.infer<typeof discussionSchema>;
export type MyDiscussion = z.infer<typeof myDiscussionSchema>;
export type DiscussionMember = z.infer<typeof discussionMemberSchema>;
export type DiscussionMessage = z.infer<typeof discussionMessageSchema>;
export type DiscussionDetails = z.infer<typeof discussionDetailsSchema>;
