/** The one error a device shows as "This message could not be decrypted": a value, record, wrap or anchor that did not open. */
export class UndecryptableError extends Error {
  override name = "UndecryptableError";
  constructor(what: string, options?: { cause?: unknown }) {
    super(`${what} could not be decrypted`, options);
  }
}
