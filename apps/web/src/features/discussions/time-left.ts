import { formatTimeLeft } from "@daysync/shared";

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

/** How long a discussion has left, in words that fit a sidebar: "6 d 23 h", "5 h 12 min", "40 s". */
export function formatDiscussionTimeLeft(ms: number): string {
  if (ms < DAY) return formatTimeLeft(ms);
  const days = Math.floor(ms / DAY);
  const hours = Math.floor((ms % DAY) / HOUR);
  return hours === 0 ? `${days} d` : `${days} d ${hours} h`;
}
