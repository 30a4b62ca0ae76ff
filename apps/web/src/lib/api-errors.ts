import { ApiError } from "./api-client.ts";
import { InsecureAddressError } from "./web-crypto.ts";

const FALLBACK_BY_CODE: Record<string, string> = {
  validation: "Some fields are not valid. Check them and try again.",
  unauthenticated: "Your session has ended. Please sign in again.",
  invalid_credentials: "Invalid email or password.",
  forbidden: "You are not allowed to do that.",
  not_found: "This item does not exist or is no longer available.",
  email_taken: "An account with this email already exists.",
  conflict: "This conflicts with a change made elsewhere. Refresh and try again.",
  expired: "This message has expired or was deleted.",
  payload_too_large: "This is too large to send.",
  rate_limited: "Too many attempts. Wait a moment and try again.",
};

export const OFFLINE_MESSAGE = "Cannot reach Daysync. Check your connection and try again.";

/** The one place that turns any failure into a sentence a person can read. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.message) return error.message;
    return FALLBACK_BY_CODE[error.code] ?? "Something went wrong. Please try again.";
  }
  if (isNetworkError(error)) return OFFLINE_MESSAGE;
  if (error instanceof InsecureAddressError) return error.message;
  // The crypto core's refusals are sentences for the person (docs/protocol/encryption.md, "Encrypted discussions").
  if (error instanceof Error && (error.name === "RoomError" || error.name === "NoRoomKeyError")) return error.message;
  return "Something went wrong. Please try again.";
}

/** fetch rejects with a TypeError when the server cannot be reached at all. */
export function isNetworkError(error: unknown): boolean {
  return error instanceof TypeError;
}

/** Errors worth retrying later: no connection, server trouble, rate limits. */
export function isTransientError(error: unknown): boolean {
  if (error instanceof ApiError) return error.status >= 500 || error.status === 429 || error.status === 408;
  return isNetworkError(error);
}
