/**
 * Checks every text a request carries, each refused by name so the app's forms and the server's 400 say the same.
 * `text()` is the base of every free-form string schema of a request; `chosenName()` of every name a person chooses
 * (account, device, discussion title and display name, file name).
 */
import { z } from "zod";

/**
 * PostgreSQL text cannot hold U+0000 and no person types it, so every text we store or look up refuses it
 * by name in its schema instead of failing in the database.
 */
export const hasNoNul = (value: string) => !value.includes("\u0000");

export const nulMessage = (what: string) => `${what} must not contain the NUL character (U+0000).`;

/**
 * Half of a surrogate pair standing alone: JSON.parse makes one of a "\ud800" escape, and it has no UTF-8 form,
 * so it would be stored as a replacement character. With the u flag a regex sees a whole pair as one code point,
 * so \p{Surrogate} matches only a lone half (String.prototype.isWellFormed, where the app's browsers lack it).
 */
const ANY_SURROGATE = /[\uD800-\uDFFF]/;
const LONE_SURROGATE = /\p{Surrogate}/u;
// Most texts hold no surrogate at all: the plain test settles them without the slower Unicode-aware one.
export const isWellFormed = (value: string) => !ANY_SURROGATE.test(value) || !LONE_SURROGATE.test(value);

export const loneSurrogateMessage = (what: string) => `${what} must be valid text: it holds half of a character (a lone surrogate).`;

/**
 * Unicode bidirectional controls: embeddings and overrides (U+202A–U+202E), isolates (U+2066–U+2069) and the
 * left-to-right, right-to-left and Arabic letter marks. In a name they can make "exe.txt" read as "txt.exe".
 */
const BIDI_CONTROL = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;

export const hasNoBidiControls = (value: string) => !BIDI_CONTROL.test(value);

export const bidiMessage = (what: string) =>
  `${what} must not contain Unicode direction controls (such as U+202E): they can make it read as something it is not.`;

/**
 * C0 and C1 control characters and DEL (\p{Cc}): ESC starts a terminal's escape sequences (OSC 52 writes the
 * clipboard), C1's CSI and OSC do the same in one character, and a line break or carriage return makes a name
 * span or overwrite lines. No name a person chooses needs one.
 */
const CONTROL = /\p{Cc}/u;

export const hasNoControls = (value: string) => !CONTROL.test(value);

export const controlMessage = (what: string) => `${what} must not contain line breaks or other control characters.`;

/** A string from outside: well-formed and without NUL. `required`: what to say when it is missing or not a string. */
export function text(what: string, required?: string) {
  return z
    .string(required === undefined ? undefined : { error: required })
    .refine(isWellFormed, loneSurrogateMessage(what))
    .refine(hasNoNul, nulMessage(what));
}

/** A name a person chose, shown to them or to others: text without control characters or bidirectional controls. */
export function chosenName(what: string, required?: string) {
  return text(what, required).refine(hasNoControls, controlMessage(what)).refine(hasNoBidiControls, bidiMessage(what));
}
