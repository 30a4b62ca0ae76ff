import { TEXT } from "@daysync/shared";
import type { IconName } from "./components/icons.tsx";

/** Copy of the public pages that is shaped as lists; prose stays in the section components. */
export interface Card {
  icon: IconName;
  title: string;
  body: string;
}

export const FEATURED_CARDS: readonly Card[] = [
  {
    icon: "calendar",
    title: "Private messages, by day",
    body: "Everything you send to yourself lands on today's page. Yesterday's links are one click away in the day list.",
  },
  {
    icon: "chat",
    title: "Discussions that clean up after themselves",
    body: "Open a room with anyone, share it by link, QR code or ID. It disappears after 7 days, with its files.",
  },
  {
    icon: "qr",
    title: "Sign in by scanning",
    body: "Point a signed-in phone at the code on a new screen and approve. No password typed on a shared computer.",
  },
];

export const STEPS: readonly Card[] = [
  {
    icon: "copy",
    title: "Copy on your phone",
    body: "Share a link, a note or a photo to Daysync, or type it into today's page.",
  },
  {
    icon: "sync",
    title: "Instant sync",
    body: "It reaches every device you are signed in on in about a second, over one secure connection.",
  },
  {
    icon: "paste",
    title: "Paste on your PC",
    body: "Press Copy or Download on the computer and carry on. No cable, no emailing yourself.",
  },
];

export const KEY_FEATURES: readonly Card[] = [
  { icon: "bolt", title: "Real-time", body: "Changes are pushed to your open devices as they happen, and caught up after a reconnect." },
  { icon: "calendar", title: "Organised by date", body: "One page per calendar day, with a search across the messages you still have." },
  { icon: "file", title: "Files too", body: "Resumable uploads up to 100 MiB on Free and 2 GiB on Premium. Pause, resume or cancel." },
  { icon: "clock", title: "You set the lifetime", body: "Messages expire on the server when their time is up, not just from view." },
  {
    icon: "shield",
    title: "Private by design",
    body: "Your files are served only to you. Discussions show a name you pick, never your email.",
  },
  {
    icon: "globe",
    title: "Every platform",
    body: "Install it on Android, iOS, Windows, macOS and Linux, or use it in any browser. Light or dark.",
  },
];

export interface FaqItem {
  question: string;
  answer: string;
}

export const FAQ: readonly FaqItem[] = [
  {
    question: "What is Daysync about?",
    answer:
      "Daysync moves text, links and files between your own devices in near real time. Whatever you send lands on the page of that day, so you can copy it on your computer a second after you shared it from your phone.",
  },
  {
    question: "How do I create a private message?",
    answer: `Open the '${TEXT.privateMessages}' section and press the '${TEXT.today}' button. It opens today's page, where you type a message or pick a file and send it; it appears on all your devices.`,
  },
  {
    question: "How do I launch a discussion?",
    answer: `Press the '${TEXT.newDiscussion}' button in the '${TEXT.discussions}' section. Then share the discussion's link, QR code or ID with the people you want to invite. It lasts 7 days. It is end-to-end encrypted: its key travels in the link and the QR code, and someone who has only the ID is let in by a member with a short code; the server still sees its size, times, how many members it has and when people joined and left.`,
  },
  {
    question: "How does the subscription work?",
    answer:
      "Every account starts on Free: messages remain 15 minutes and discussions last 7 days. Premium lets you keep messages for 1 hour, 24 hours or without limit and extend discussions by 7 or 30 days. Where the server takes payments, Premium is bought from the Plan page and any member can pay a discussion's extension, at the prices the pricing shows; elsewhere the person who runs the server grants Premium.",
  },
  {
    question: "How can I donate?",
    answer:
      "Donations will open in the Daysync mobile app. Until then, telling a friend about Daysync helps us just as much, and you can write to us to say thanks.",
  },
  {
    question: "Which platforms are supported?",
    answer:
      "Android and iOS phones, Windows, macOS and Linux computers, and the web. Daysync installs from the browser as an app on each of them, so one account covers them all.",
  },
];

export const USE_CASES: readonly Card[] = [
  {
    icon: "link",
    title: "Links to your laptop",
    body: "Found an article on the bus? Share it to Daysync and open it on the big screen at home.",
  },
  {
    icon: "file",
    title: "Photos and documents",
    body: "Send a scan or a screenshot from the phone and download it on the PC, no cable needed.",
  },
  {
    icon: "copy",
    title: "Codes and snippets",
    body: "Move a one-time code, an address or a command between machines without retyping it.",
  },
  {
    icon: "chat",
    title: "Short-lived group rooms",
    body: "Swap files with a colleague for a week; the room and its files vanish on their own.",
  },
];
