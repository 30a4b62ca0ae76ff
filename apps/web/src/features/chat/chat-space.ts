/**
 * Where a chat's messages live: a private day of the signed-in user, or a shared discussion. A day carries its
 * date because today has no record before its first message.
 */
export type ChatSpace = { kind: "day"; dayId: string | null; date: string } | { kind: "discussion"; id: string };
