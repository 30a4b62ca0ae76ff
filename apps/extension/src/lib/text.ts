/** What the extension says from script (its pages' fixed words are in their HTML; the web app's come from @daysync/shared). */
export const EXTENSION_TEXT = {
  serverEmpty: "Enter your Daysync server's address.",
  serverInvalid: "That is not a web address. Enter it like https://daysync.example.com.",
  permissionDenied: (host: string) => `Daysync needs your permission to reach ${host}. Choose Connect again and allow it.`,
  pairIntro:
    "On a phone or computer where you are signed in to Daysync, scan this code with the camera (or Devices → Scan or type a code), then approve.",
  qrAlt: "QR code that pairs this browser extension when approved on your other device",
  shortCodePrompt: "Or type this code on the other device:",
  waiting: "Waiting for approval…",
  signingIn: "Approved. Pairing this browser…",
  pairFailed: "This browser was not paired. Show a new code to try again.",
  codeExpired: "This code can no longer be used. Show a new code to try again.",
  pairedBody: (server: string) => `Daysync sends what you choose from this browser to your days on ${server}.`,
  notSent: "Not sent to Daysync",
  imageUnreadable: "This image could not be read: its site does not let other pages fetch it. Save it and send the file from Daysync.",
  imageNotSent: "The image could not be sent. Check your connection and try again.",
  notReady: "This browser cannot send yet: approve it from one of your other devices.",
  fromDevice: (name: string) => `From ${name}`,
  fromOtherDevice: "From your other device",
  copy: "Copy",
  handoverNotVerified: "This browser is paired, but it could not check the key it was given, so it cannot read or send yet.",
} as const;

/** The toolbar popup's words. */
export const POPUP_TEXT = {
  copy: "Copy",
  copied: "Copied",
  copyFailed: "Could not copy. Select the text and copy it yourself.",
  download: "Download",
  noneToday: "No messages today yet.",
  offline: "You’re offline — showing what this browser had; messages will be sent when the connection is back",
  notSent: "Not sent. Please try again.",
} as const;
