/**
 * The Settings page's contract (issue 26): name, email, password, sign-in methods and deleting the account.
 * What needs a fresh check (the password, or for an account without one a new sign-in at a linked provider,
 * valid for `FRESH_CHECK_MS`) says so in its schema.
 */
import { z } from "zod";
import { APP_ROUTES } from "./app-routes.ts";
import { responseSchemas } from "./responses.ts";
import { confirmPasswordSchema, passwordSchema, registerFormSchema } from "./schemas.ts";
import { PASSWORD_MIN_LENGTH, VALIDATION } from "./ui-text.ts";

export const SETTINGS_ROUTE = APP_ROUTES.settings;

/** How long a fresh check at a provider counts for deleting the account or setting a first password. */
export const FRESH_CHECK_MS = 10 * 60 * 1000;

export const SETTINGS_API = {
  /** PUT `{ name }`: answers the user. */
  name: "/api/me/name",
  /** PUT `{ email, password? }`: answers the user. */
  email: "/api/me/email",
  /** PUT: changes the password (or sets the first one of an account made through a provider). */
  password: "/api/me/password",
  /** DELETE `{ email, password? }`: deletes the account and everything of it. */
  account: "/api/me/account",
  /** GET: whether the account has a password, and until when this device counts as freshly checked. */
  confirmation: "/api/me/confirmation",
  /** POST, signed in: starts a fresh check at a linked provider; answers where to send the browser. */
  confirmWith: (providerId: string) => `/api/auth/confirm/${encodeURIComponent(providerId)}`,
} as const;

/** The current password, when the account has one; an account without one sends none and needs a fresh check. */
const currentPassword = z.string().max(256, "Password must be at most 256 characters.").optional();

export const changeNameSchema = z.object({ name: registerFormSchema.shape.name });
export type ChangeNameInput = z.infer<typeof changeNameSchema>;

export const changeEmailSchema = z.object({ email: registerFormSchema.shape.email, password: currentPassword });
export type ChangeEmailInput = z.infer<typeof changeEmailSchema>;

/** A new password and its confirmation: the rules of registration (the server's minimum length included). */
export const newPasswordFormSchema = z
  .object({ password: passwordSchema, confirm_password: confirmPasswordSchema })
  .refine((v) => v.password === v.confirm_password, { message: VALIDATION.passwordsMatch, path: ["confirm_password"] })
  .refine((v) => v.password.length >= PASSWORD_MIN_LENGTH, { message: VALIDATION.passwordTooShort, path: ["password"] });

export const changePasswordSchema = z
  .object({
    current_password: currentPassword,
    password: passwordSchema,
    confirm_password: confirmPasswordSchema,
    /** Unchecked by default: the account's other devices are signed out. */
    keep_other_devices: z.boolean().optional().default(false),
  })
  .refine((v) => v.password === v.confirm_password, { message: VALIDATION.passwordsMatch, path: ["confirm_password"] })
  .refine((v) => v.password.length >= PASSWORD_MIN_LENGTH, { message: VALIDATION.passwordTooShort, path: ["password"] });
export type ChangePasswordInput = z.infer<typeof changePasswordSchema>;
/** What the Settings form sends (`keep_other_devices` may be left out). */
export type ChangePasswordRequest = z.input<typeof changePasswordSchema>;

export const deleteAccountSchema = z.object({
  /** The account's email, typed to confirm. */
  email: z.string({ error: "Type your email to confirm." }).trim().min(1, "Type your email to confirm.").max(254),
  password: currentPassword,
});
export type DeleteAccountInput = z.infer<typeof deleteAccountSchema>;

export const settingsResponseSchemas = {
  user: responseSchemas.user,
  passwordChanged: z.object({ signed_out: z.number().int().nonnegative() }),
  confirmation: z.object({ has_password: z.boolean(), confirmed_until: z.number().nullable() }),
  confirmStart: z.object({ redirect: z.string() }),
} as const;
export type Confirmation = z.infer<typeof settingsResponseSchemas.confirmation>;

export const SETTINGS_TEXT = {
  wrongPassword: "That password is not right.",
  freshCheckNeeded: "Confirm it is you first: sign in again with a linked provider, then try within 10 minutes.",
  deleteEmailMismatch: "Type your account's email exactly as shown to confirm.",
  accountDeleted: "Your account was deleted, with everything in it. Thank you for using Daysync.",
} as const;
