/**
 * The ten gallery screenshots. scripts/screenshots.ts captures them from the running app with these
 * viewports and writes every width below to apps/web/public/screenshots/, so page and script share one list.
 */
export interface Screenshot {
  /** File name stem under /screenshots/, e.g. "04-dashboard". */
  name: string;
  caption: string;
  alt: string;
  /** CSS viewport of the capture and its device scale factor. */
  viewport: { width: number; height: number; scale: number };
}

export interface ScreenshotFile {
  src: string;
  width: number;
  height: number;
}

const DESKTOP = { width: 1280, height: 800, scale: 1 } as const;
const PHONE = { width: 390, height: 844, scale: 2 } as const;

export const SCREENSHOTS: readonly Screenshot[] = [
  {
    name: "01-landing",
    caption: "Landing page",
    alt: "The Daysync landing page with the headline 'Sync messages across multiple devices seamlessly.' next to a phone and a laptop showing the same day",
    viewport: DESKTOP,
  },
  {
    name: "02-login",
    caption: "Sign in",
    alt: "The sign-in screen with email and password fields, the Sign In button and the option to sign in using a connected device",
    viewport: DESKTOP,
  },
  {
    name: "03-qr-sign-in",
    caption: "Device sign-in",
    alt: "The sign-in screen with the connected-device panel open: a QR code to scan with a signed-in phone, the same code to type by hand, and its countdown",
    viewport: DESKTOP,
  },
  {
    name: "04-add-device",
    caption: "Add a device",
    alt: "A signed-in computer showing 'Add a device': a QR code for the phone's camera, the same code to type by hand, and its countdown",
    viewport: DESKTOP,
  },
  {
    name: "05-dashboard",
    caption: "Today's messages",
    alt: "The dashboard with today's messages, each with a Copy button and its time, and the list of days in the sidebar",
    viewport: DESKTOP,
  },
  {
    name: "06-file-upload",
    caption: "Sending files",
    alt: "The dashboard while two files picked at once upload, each in its own row with its progress, Pause and cancel buttons, beside the message box",
    viewport: DESKTOP,
  },
  {
    name: "07-dark-theme",
    caption: "Dark theme",
    alt: "The dashboard in the dark theme, with a photo message and its preview",
    viewport: DESKTOP,
  },
  {
    name: "08-phone-dashboard",
    caption: "On a phone",
    alt: "The dashboard on a phone-sized screen, with today's messages and the message box at the bottom",
    viewport: PHONE,
  },
  {
    name: "09-phone-landing",
    caption: "Phone, dark",
    alt: "The Daysync landing page on a phone-sized screen in the dark theme",
    viewport: PHONE,
  },
  {
    name: "10-discussion",
    caption: "A discussion",
    alt: "A shared discussion: its title and time left, messages labelled with each member's chosen name, and the Discussions section of the sidebar with the New button, the Join field and an unread count",
    viewport: DESKTOP,
  },
];

/** Widths written for each screenshot: a thumbnail and a full view, never wider than the capture. */
export function screenshotFiles(shot: Screenshot): ScreenshotFile[] {
  const captured = shot.viewport.width * shot.viewport.scale;
  const widths = [...new Set([480, Math.min(1280, captured)])];
  return widths.map((width) => ({
    src: `/screenshots/${shot.name}-${width}.webp`,
    width,
    height: Math.round((width * shot.viewport.height) / shot.viewport.width),
  }));
}
