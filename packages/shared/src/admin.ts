/** The admin page's contract (issue 30): its routes, what it sends and what it gets back. */
import { z } from "zod";
import { confirmPasswordSchema, passwordSchema } from "./schemas.ts";
import { text } from "./text.ts";
import { VALIDATION } from "./ui-text.ts";

export const ADMIN_ROUTE = "/admin";
/** The page a reset link opens; the token follows in the fragment, which never reaches a server log. */
export const RESET_PASSWORD_ROUTE = "/reset-password";

export const ADMIN_API = {
  /** GET ?q=: accounts matching the name or email (all when empty), newest first. */
  accounts: "/api/admin/accounts",
  /** DELETE: deletes the account and everything of it. */
  account: (id: string) => `/api/admin/accounts/${encodeURIComponent(id)}`,
  /** PUT `{ until }`: grants Premium until that date (`null`: no end date). DELETE: ends Premium (back to Free). */
  premium: (id: string) => `/api/admin/accounts/${encodeURIComponent(id)}/premium`,
  /** PUT: disables the account (its sessions end at once). DELETE: enables it again. */
  disabled: (id: string) => `/api/admin/accounts/${encodeURIComponent(id)}/disabled`,
  /** POST: a one-time link to set a new password, valid for 30 minutes. */
  passwordReset: (id: string) => `/api/admin/accounts/${encodeURIComponent(id)}/password-reset`,
  figures: "/api/admin/figures",
  audit: "/api/admin/audit",
  /** POST: a one-time invite link to register, valid `INVITE_TTL_MS` → `InviteLink`. */
  invites: "/api/admin/invites",
} as const;

/** POST: sets a new password with a reset link's token. */
export const RESET_PASSWORD_API = "/api/auth/reset-password";

export const PASSWORD_RESET_TTL_MS = 30 * 60 * 1000;

export const ACCOUNT_DISABLED_MESSAGE = "This account has been disabled by the administrator of this server.";
export const RESET_LINK_INVALID_MESSAGE = "This reset link is invalid, was already used or has expired. Ask for a new one.";

export const adminAccountIdParamsSchema = z.object({ id: z.uuid("Account id must be a UUID.") });

export const adminAccountsQuerySchema = z.object({
  q: text("Search").trim().max(254, "Search at most 254 characters.").optional().default(""),
});

const isoDay = /^\d{4}-\d{2}-\d{2}$/;
/** Premium until the end (UTC) of this calendar day, yyyy-mm-dd; `null`: with no end date. */
export const grantPremiumSchema = z.object({
  until: z
    .string({ error: "Choose the date Premium ends, or no end date." })
    .regex(isoDay, "The end date must be yyyy-mm-dd.")
    .refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)), "The end date must be a real calendar date.")
    .nullable(),
});
export type GrantPremiumInput = z.infer<typeof grantPremiumSchema>;

/** The last moment of a yyyy-mm-dd day in UTC, ms since the epoch. */
export const endOfUtcDay = (day: string) => Date.parse(`${day}T23:59:59.999Z`);

/** The reset page's form: the same password rules as registration. */
export const resetPasswordFormSchema = z
  .object({ password: passwordSchema, confirm_password: confirmPasswordSchema })
  .refine((v) => v.password === v.confirm_password, { message: VALIDATION.passwordsMatch, path: ["confirm_password"] })
  .refine((v) => v.password.length >= 8, { message: VALIDATION.passwordTooShort, path: ["password"] });
export type ResetPasswordForm = z.infer<typeof resetPasswordFormSchema>;

export const resetPasswordRequestSchema = z
  .object({
    token: z.string({ error: RESET_LINK_INVALID_MESSAGE }).regex(/^[A-Za-z0-9_-]{20,100}$/, RESET_LINK_INVALID_MESSAGE),
    password: passwordSchema,
    confirm_password: confirmPasswordSchema,
  })
  .refine((v) => v.password === v.confirm_password, { message: VALIDATION.passwordsMatch, path: ["confirm_password"] })
  .refine((v) => v.password.length >= 8, { message: VALIDATION.passwordTooShort, path: ["password"] });

export const adminAccountSchema = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  role: z.enum(["admin", "user"]),
  /** ms since the epoch; null while enabled. */
  disabled_at: z.number().nullable(),
  title_subscription: z.string(),
  subscription_type_id: z.number(),
  /** ms since the epoch. */
  date_expiration_subscription: z.number(),
  /** Bytes of finished files the account uploaded. */
  storage_used: z.number(),
  devices: z.number(),
  /** ms since the epoch of the most recent device activity; null without devices. */
  last_seen_at: z.number().nullable(),
  created_at: z.number(),
});
export type AdminAccount = z.infer<typeof adminAccountSchema>;

export const auditEntrySchema = z.object({
  id: z.string(),
  at: z.number(),
  /** Who did it: an admin's email, or the command line. */
  actor: z.string(),
  action: z.string(),
  /** Whom it concerned, by email at the time ("a deleted account" once deleted). */
  target: z.string(),
  detail: z.string(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

export const adminFiguresSchema = z.object({
  accounts: z.number(),
  devices_online: z.number(),
  /** Whether `devices_online` counts every process (Redis) or only the one that answered. */
  devices_online_scope: z.enum(["all", "this process"]),
  messages_last_hour: z.number(),
  messages_last_day: z.number(),
  files_last_hour: z.number(),
  files_last_day: z.number(),
  /** Bytes of stored files, and what the files volume has in all and left. */
  storage_used: z.number(),
  volume_size: z.number(),
  volume_free: z.number(),
  open_discussions: z.number(),
  /** The last 24 hours, oldest first: each hour's start (ms) with its messages and files. */
  hours: z.array(z.object({ start: z.number(), messages: z.number(), files: z.number() })),
});
export type AdminFigures = z.infer<typeof adminFiguresSchema>;

export const adminResponseSchemas = {
  accounts: z.object({ accounts: z.array(adminAccountSchema) }),
  account: z.object({ account: adminAccountSchema }),
  figures: adminFiguresSchema,
  audit: z.object({ entries: z.array(auditEntrySchema) }),
  passwordReset: z.object({ url: z.string(), expires_at: z.number() }),
  deleted: z.object({ deleted: z.literal(true) }),
};
