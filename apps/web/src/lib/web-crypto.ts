import { SEALED_TEXT } from "@daysync/shared";

/**
 * Browsers give WebCrypto only to secure pages (https://, or the computer Daysync runs on): without it this device can
 * make no key, so it can neither seal, open nor take part in a pairing (decision 020).
 */
export const hasWebCrypto = (): boolean => Boolean(globalThis.crypto?.subtle);

/** What a step that needs a key throws on a page without WebCrypto; its message says what to do. */
export class InsecureAddressError extends Error {
  constructor() {
    super(SEALED_TEXT.insecure);
  }
}
