/**
 * What belongs to one installation rather than to the product (issue 43): who may register on it, and the
 * owner's contact details, brand line and store links the public pages show. Read by the pages at run time from
 * `SITE_API.config`, since `/`, `/login` and `/register` are built once for every install (decision 005).
 */
import { z } from "zod";

/** `open`: anyone may register; `invite`: only with an admin's one-time invite link; `closed`: no new accounts. */
export const registrationModeSchema = z.enum(["open", "invite", "closed"]);
export type RegistrationMode = z.infer<typeof registrationModeSchema>;

export const siteConfigSchema = z.object({
  registration: registrationModeSchema,
  contact_phone: z.string().nullable(),
  contact_email: z.string().nullable(),
  brand_line: z.string().nullable(),
  app_store_url: z.string().nullable(),
  play_store_url: z.string().nullable(),
});
export type SiteConfig = z.infer<typeof siteConfigSchema>;

/** How long an invite link works, once. */
export const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** The register page reads the invite from the link's fragment, which never reaches a server log. */
export const INVITE_FRAGMENT = "invite";

export const inviteTokenSchema = z.string().regex(/^[A-Za-z0-9_-]{20,100}$/, "This invite link is not valid.");

/** What a registration may carry besides the form: the invite of the link it came from. */
export const registerInviteSchema = z.object({ invite: inviteTokenSchema.optional() });

export const inviteLinkSchema = z.object({ url: z.string(), expires_at: z.number() });
export type InviteLink = z.infer<typeof inviteLinkSchema>;

/** Why registration was refused, as the server answers it and the pages say it. */
export const REGISTRATION_TEXT = {
  closed: "This server is not taking new accounts. Ask its owner if you should have one.",
  inviteRequired: "This server takes new accounts by invitation only. Ask its owner for an invite link.",
  inviteInvalid: "This invite link is invalid, was already used or has expired. Ask the owner of this server for a new one.",
  /** The login page, under "Register a new membership", when nobody can register without an invite. */
  loginClosed: "Registration is closed on this server.",
  loginInviteOnly: "Registration on this server is by invitation only: ask its owner for an invite link.",
} as const;

/** Premium granted with no end date ends at this moment (31 December 9999, UTC): never, for any purpose. */
export const NO_END_DATE_MS = Date.parse("9999-12-31T23:59:59.999Z");
export const hasNoEndDate = (ms: number) => ms >= NO_END_DATE_MS;
