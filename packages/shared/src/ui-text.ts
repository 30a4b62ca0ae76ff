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
/** The live connection's notice while the server turns sockets away at its pace (1013); sends go over HTTP meanwhile. */
export const LIVE_BUSY_TEXT = "The server is busy — reconnecting in a moment. Messages are still sent.";

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
  /** The keyed device's Approve, on a device that does not hold the account's key itself. */
  cannotApprove: "This device cannot read your messages, so it cannot hand the key to another one. Approve from a device that can.",
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

/** What the device list check says when it refuses the server's list of devices (docs/protocol/encryption.md). */
export const DEVICE_LIST_TEXT = {
  broken:
    "Your list of devices from the server could not be verified, so this device does not trust it. Someone may be interfering with the server.",
  notExtended:
    "The server showed an older or different list of your devices than this device saw before, which could hide a removed device. Someone may be interfering with the server.",
  readded: "The server listed a removed device again with its old key. It was not trusted. Someone may be interfering with the server.",
  notOwnKey:
    "Your list of devices names this device with a signing key that is not its own, so the server may have swapped it. Compare the security codes in Devices, and remove this device and sign in again if they differ.",
} as const;

/** Handing the account's keys to a new device. */
export const HANDOVER_TEXT = {
  /** The approving device: the asking key's proof did not check out, so the request was denied. */
  keyNotVerified:
    "This device's key could not be verified, so it was not approved. Someone may be interfering with the connection or the server. Try again; if it happens again, tell whoever runs this server.",
  /** The new device: a wrap or roster row of the handover did not check out; it is signed in but locked. */
  handoverNotVerified: "The key from your other device could not be verified. Approve this device again from your other device.",
} as const;

/** What a device says when a recovery code cannot be used; a typo's wording is `typo`, whatever the library said. */
export const RECOVERY_TEXT = {
  typo: "That recovery code has a typo: check it against the one you saved.",
  mismatch: "That recovery code does not match this account.",
  none: "This account has no recovery code.",
  notVerified:
    "The keys your recovery code opens could not be verified. Someone may be interfering with the connection or the server. Try again; if it happens again, tell whoever runs this server.",
  outdated: "Your recovery code does not open your account's current key. Approve this device from another device instead.",
};

/** Start over on a locked device (decision 021), in the web app and `daysync start-over` alike. */
export const START_OVER_TEXT = {
  confirm: "Start over? What was sent before can no longer be read on any device and is deleted as it expires. This cannot be undone.",
  consequences:
    "Start over: this device makes a new key. Messages sent before can no longer be read on any device, and are deleted as they expire. This cannot be undone.",
  recoveryIsTheWay: "Your account has a recovery code: it is the way back. Start over is not possible while it is set.",
  askOffer:
    "No longer have the device that can read your messages? Ask to start over: your other devices are told and can cancel it, and after 24 hours this device can start over.",
  asked: (when: string) => `You asked to start over. Unless one of your other devices cancels it, this device can start over from ${when}.`,
  holder: (name: string, seen: string) => `Your messages can be read on ${name}, last seen ${seen}.`,
  requested: (when: string) =>
    `A device signed in to your account asked to start over on ${when}. If it goes ahead, what was sent before can no longer be read on any device. If it was not you, cancel it and change your password.`,
  withdrawn: "Your request to start over is withdrawn.",
  cancelled: "The request to start over is cancelled.",
  /** The server refused a start over: another device holds the key (or the code is set, `recoveryIsTheWay`). */
  stillHeld: "Another signed-in device still holds the key: approve this device from it instead.",
  recoveryInstead: "Your account has a recovery code: unlock this device with it instead of starting over.",
};

/** Notices beside a day's messages: some never arrived, or one arrived late. */
export const gapNotice = (count: number, deviceName: string) =>
  `${count} ${count === 1 ? "message" : "messages"} from ${deviceName} did not arrive`;

export const lateNotice = (deviceName: string) => `A message from ${deviceName} arrived after a newer one`;

/**
 * What a device says when it refuses something of an end-to-end encrypted discussion (docs/protocol/encryption.md,
 * "Encrypted discussions"); a value that does not open says SEALED_TEXT.undecryptable, as in the personal space.
 */
export const ROOM_TEXT = {
  /** The link's fragment is missing, cut or changed. */
  linkDamaged: "This link to a discussion is incomplete or damaged, so it cannot be opened. Ask for the link again.",
  /** The server served another discussion than the one the link's key was made for. */
  linkOtherRoom:
    "This link does not belong to the discussion the server showed, so its key was not used. Someone may be interfering with the server.",
  /** Admission by typed ID: the code typed on the member's device was not the one the joining device shows. */
  wrongCode: "That is not the code shown on the device asking to join, so nothing was handed over. A new request to join shows a new code.",
  /** Admission by typed ID: the handover (key, wraps or the new member's entry) did not check out on the joining device. */
  keyNotVerified:
    "The key for this discussion could not be verified, so it was not accepted. Someone may be interfering with the server. Ask to join again.",
  /** A member entry no member made: added by the server alone, without a valid admission. */
  notAdmitted:
    "Someone is listed in this discussion who was not let in by one of its members, so this device does not trust the list. Someone may be interfering with the server.",
  /** A new key that does not follow from the one this device holds, or comes from someone who is not a member of it. */
  rotationNotFromMember:
    "This discussion's new key did not come from one of its members, so it was not accepted. Someone may be interfering with the server.",
  /** A new key also handed to someone this device saw leave or be removed. */
  rotationForDeparted:
    "This discussion's new key was also given to someone who left, so it was not accepted. Someone may be interfering with the server.",
  /** The server offers a key generation below one this device already holds. */
  olderKey:
    "The server offered an older key for this discussion than this device already has, so it was not used. Someone may be interfering with the server.",
  /** Someone left and no new key has come yet: nothing is sealed under the key they still hold. */
  waitingForNewKey: "Someone left this discussion. Waiting for a member's device to make a new key; this is sent as soon as that is done.",
} as const;
