import { describeRetention } from "@daysync/shared";

/** How long a message lives, said plainly: "messages disappear 15 minutes after sending". */
export function messageLifetimePhrase(minutes: number | null): string {
  if (minutes === null) return "messages do not disappear on their own";
  const span = describeRetention(minutes).replace(/ min$/, minutes === 1 ? " minute" : " minutes");
  return `messages disappear ${span} after sending`;
}
