import { API_ERROR_CODES } from "@daysync/shared";
import { conflict } from "../../http/errors.ts";

/** The account's key state as its user row holds it. */
export interface AccountEpoch {
  keyEpoch: number | null;
  keyRotationDue: boolean;
}

/**
 * What is sealed goes in only under the account's current epoch, and not while a rotation is due (decision 020,
 * section 7): the device keeps it and seals it again under the next epoch, with the same id.
 */
export function assertSealedUnderCurrentEpoch(epoch: number, account: AccountEpoch) {
  if (account.keyRotationDue) {
    throw conflict(API_ERROR_CODES.keyRotationDue, "Your devices are moving to a new key; this is sent as soon as that is done.");
  }
  if (account.keyEpoch !== epoch) {
    throw conflict(API_ERROR_CODES.keyEpochChanged, "This was sealed under another key than your account's current one.");
  }
}

/** Once the account has a key, what goes into its days, text or file, is sealed on the device (docs/protocol/encryption.md, "File records"). */
export const encryptionRequired = () =>
  conflict(
    API_ERROR_CODES.encryptionRequired,
    "Messages to your own days are end-to-end encrypted: send from a device that holds your key (update the app, or approve this device from another one).",
  );
