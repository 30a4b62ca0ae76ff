/**
 * How long a discussion lasts and how far it may be extended. Kept apart from discussions.ts, which makes zod
 * schemas as it loads: the public pages say these figures and must not bring zod into their small bundle.
 */
import { DAY_MS } from "./plans.ts";

/** A discussion lasts this long from creation, unless a premium member extends it. */
export const DISCUSSION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;
export const DISCUSSION_EXTENSION_DAYS = [7, 30] as const;
/** However often it is extended, a discussion ends at most this many days after now. */
export const DISCUSSION_MAX_AHEAD_DAYS = 90;

/** Whether extending a discussion that ends at `endsAt` by `days` keeps its end within the limit ahead of `now`. */
export const canExtendBy = (endsAt: number, days: number, now: number) =>
  endsAt + days * DAY_MS <= now + DISCUSSION_MAX_AHEAD_DAYS * DAY_MS;
