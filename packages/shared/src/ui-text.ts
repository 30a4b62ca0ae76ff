/** The spec's user-facing strings, kept once for the app, the server and the tests. */
export const TEXT = {
  productName: "Daysync",
  company: "Daysync Labs",
  tagline: "Sync messages across multiple devices seamlessly.",
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

/** Approving a device by a typed code (docs/protocol/encryption.md): the same words in the web app, the CLI and tests. */
export const APPROVAL_TEXT = {
  /** The locked device, above the code it shows. */
  typeThisCode: "Type this code on one of your other devices",
  /** The locked device, under the code. */
  whereToType: "Open Daysync on a device that can read your messages: it shows this request with a field for the code.",
  /** The keyed device's field (its accessible name). */
  codeField: "Code shown on the new device",
  approve: "Approve",
  deny: "Deny",
  /** The keyed device, while the new device checks the code. */
  checking: (name: string) => `Checking the code with ${name}…`,
  /** The keyed device: the code typed was not the one shown. */
  wrongCode: (left: number) =>
    `That is not the code shown on the new device. Check it and type it again (${left} ${left === 1 ? "try" : "tries"} left).`,
  /** The locked device: a wrong code was typed on the other device. */
  wrongCodeTyped: (left: number) => `A wrong code was typed on your other device (${left} ${left === 1 ? "try" : "tries"} left).`,
  /** Either device: the third wrong code ended the request. */
  endedWrongCodes: "A wrong code was typed three times, so the request ended. Ask again on the new device.",
  /** Either device: a copy of the request from the server did not match what this device saw first. */
  refused: "This request changed on the way between your devices, so it was ended. Ask again on the new device.",
  /** The locked device, once the codes matched. */
  waitingForHandover: "The code matched. Waiting for your other device…",
  /** Add a device, on the offering device: the code typed on the new device was wrong. */
  offerWrongCode:
    "The code typed on the new device was not the one shown here, so it was not signed in. Show a new code and type it there again.",
  /** Add a device, on the new device: the code typed here was wrong. */
  joinWrongCode:
    "That is not the code shown on your other device, so this device was not signed in. Show a new code there and type it again.",
  approved: (name: string) => `${name} can now read your messages.`,
  denied: "The request was ended on one of your devices.",
} as const;
