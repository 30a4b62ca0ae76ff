/** The spec's user-facing strings, kept once for the app, the server and the tests. */
export const TEXT = {
  productName: "Daysync",
  company: "Daysync Labs",
  tagline: "Sync messages across multiple devices seamlessly.",
  copyright: "© 2024 Daysync Labs. All rights reserved.",
  version: "Version 1.0.0",
  loginHeading: "Sign in to start your session",
  signIn: "Sign In",
  or: "- OR -",
  connectedDevice: "Sign in using connected device",
  registerLink: "Register a new membership",
  registerHeading: "Register a new membership",
  register: "Register",
  haveMembership: "I already have a membership",
  noMessages: "YOU DON'T HAVE MESSAGES AT THIS DATE",
  messagePlaceholder: "Type Message ...",
  /** One Send for the typed text and the staged files (the spec's separate 'Send file' is folded into it). */
  send: "Send",
  copy: "Copy",
  copied: "Message copied!",
  copyFailed: "Failed to copy!",
  atHome: "At home",
  callUs: "Call Us",
  contactUs: "Contact Us",
  logout: "Logout",
  loginSuccessTitle: "Login success",
  loginSuccessBody: "Welcome",
  loginFailedTitle: "Login failed",
  loginFailedBody: "Try again",
  notificationDenied: "You denied for the notification",
  errorHeading: "Unexpected Application Error!",
  notFound: "404 Not Found",
  privateMessages: "Private messages",
  today: "Today",
  discussions: "Discussions",
  newDiscussion: "New",
} as const;

/** The server's password rule; the register form says it under the field (the spec has no such rule on the client). */
export const PASSWORD_MIN_LENGTH = 8;

/** Validation messages of the spec (section 5), plus the server's password rule. */
export const VALIDATION = {
  message: "Enter a message",
  emailInvalid: "Invalid email address",
  emailRequired: "Enter an email",
  passwordRequired: "Enter a password",
  nameRequired: "Enter a name",
  confirmRequired: "Confirm password",
  passwordsMatch: "Passwords must match",
  passwordTooShort: `Password must be at least ${PASSWORD_MIN_LENGTH} characters.`,
  /** Said under the register form's password field before anything is sent. */
  passwordRule: `At least ${PASSWORD_MIN_LENGTH} characters.`,
} as const;

export const CONTACT = {
  phone: "+1-555-0134",
  email: "hello@daysync.app",
} as const;

/** Timings of the spec, in milliseconds. */
export const TIMINGS = {
  copyNotice: 3000,
  errorBanner: 5000,
  toastAutoClose: 5000,
} as const;

/** File upload status texts of the spec; the percent has two decimals. */
export const UPLOAD_TEXT = {
  uploading: (percent: number) => `Uploading selected file ${percent.toFixed(2)}%`,
  paused: "Uploading file paused...",
  success: "File uploaded successfully!",
  failed: "File upload failed!",
  /** Not in the spec: the user's own cancel is not a failure. */
  cancelled: "Upload cancelled",
} as const;

export type UploadStatus = "initial" | "uploading" | "pause" | "success" | "fail";
