/**
 * Mail the server sends when its operator set SMTP (issue 26): address verification, "Forgot password?" and sign-in
 * links. Each link opens a page of this app with its token in the fragment (never in a server log), which the page
 * POSTs once. Without SMTP the routes answer 404 `email_not_configured` and the app shows none of it.
 */
import { z } from "zod";
import { loginSchema } from "./schemas.ts";

export const EMAIL_API = {
  /** GET, public: whether this server sends mail (the app shows the buttons only then). */
  config: "/api/auth/email",
  /** POST `{ email }`: a reset link to that address if an account has it; the same answer either way. */
  forgotPassword: "/api/auth/forgot-password",
  /** POST `{ email }`: a sign-in link to that address if an account has it; the same answer either way. */
  signInLink: "/api/auth/sign-in-link",
  /** POST `{ token }`: uses a sign-in link: this device is signed in. */
  useSignInLink: "/api/auth/sign-in-link/use",
  /** POST `{ token }`: uses a verification link. */
  verify: "/api/auth/verify-email",
  /** POST, signed in: sends the account's address a new verification link. */
  resendVerification: "/api/auth/verify-email/resend",
} as const;

export const VERIFY_EMAIL_TTL_MS = 24 * 60 * 60 * 1000;
export const SIGN_IN_LINK_TTL_MS = 15 * 60 * 1000;

export const EMAIL_NOT_CONFIGURED_MESSAGE = "This server does not send email. Ask its administrator for help.";
export const SIGN_IN_LINK_INVALID_MESSAGE = "This sign-in link is invalid, was already used or has expired. Ask for a new one.";
/** Registration with an address an account has but never confirmed (issue 42): what its owner can do instead. */
export const EMAIL_UNCONFIRMED_REGISTER_MESSAGE =
  'An account was started with this email but never confirmed. If the address is yours, go to Sign in and use "Email me a sign-in link" or "Forgot password?": the account becomes yours, and whoever started it is signed out.';
export const VERIFY_LINK_INVALID_MESSAGE =
  "This verification link is invalid, was already used or has expired. Sign in and ask for a new one.";

/** The words of the pages and the banner, in one place. */
export const EMAIL_TEXT = {
  forgotPassword: "Forgot password?",
  emailSignInLink: "Email me a sign-in link",
  forgotHeading: "Reset your password",
  forgotIntro: "Enter the email of your account. We will send you a link to set a new password.",
  sendResetLink: "Send reset link",
  resetSent: "If an account uses that address, a link to reset its password is on its way. It works once, for 30 minutes.",
  signInLinkHeading: "Sign in by email",
  signInLinkIntro: "Enter the email of your account. We will send you a link that signs this device in, no password needed.",
  sendSignInLink: "Send sign-in link",
  signInLinkSent: "If an account uses that address, a sign-in link is on its way. It works once, for 15 minutes.",
  backToSignIn: "Back to sign in",
  signingIn: "Signing you in…",
  verifyHeading: "Confirm your email",
  verifying: "Confirming your email…",
  verified: "Thank you: your email address is confirmed.",
  unverifiedBanner: "Please confirm your email address, {email}: open the link we sent there, or ask for a new one.",
  resend: "Resend",
  resent: "Sent. Check your inbox.",
  /** A mailed sign-in or reset link opened in a browser already signed in (issue 42: no silent switch of accounts). */
  switchAccountHeading: "Switch accounts?",
  signedInAs: "You are signed in as {name} ({email}).",
  signInLinkOtherAccount: "This link signs this browser in to the account it was sent for, which may be another one.",
  resetLinkOtherAccount:
    "This link sets a new password for the account it was sent for, which may be another one, and signs this browser in to it.",
  useOtherAccount: "Sign in as the other account",
  resetOtherAccount: "Set a new password for that account",
  staySignedIn: "Stay signed in",
} as const;

/** The email of a "Forgot password?" or sign-in link request: the sign-in form's rules. */
export const emailLinkRequestSchema = z.object({ email: loginSchema.shape.email });
export type EmailLinkRequest = z.infer<typeof emailLinkRequestSchema>;

/** A link's token, from its page's fragment. */
export const emailTokenRequestSchema = (invalidMessage: string) =>
  z.object({ token: z.string({ error: invalidMessage }).regex(/^[A-Za-z0-9_-]{20,100}$/, invalidMessage) });

export const emailResponseSchemas = {
  /** GET /api/auth/email */
  config: z.object({ enabled: z.boolean() }),
  /** 202 to a request for a link: the same whether or not an account has the address. */
  requested: z.object({ requested: z.literal(true) }),
  /** POST /api/auth/verify-email: the address now verified. */
  verified: z.object({ email: z.string() }),
};
export type EmailConfigAnswer = z.infer<typeof emailResponseSchemas.config>;
