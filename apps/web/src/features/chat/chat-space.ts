/**
 * Where a chat's messages live. Today only a private day of the signed-in user; a shared discussion will be
 * `{ kind: "discussion"; id: string }`. A day carries its date because today has no record before its first
 * message.
 */
export type ChatSpace = { kind: "day"; dayId: string | null; date: string };
