/** Devices as the signed device list names them (docs/protocol/encryption.md, "Signed device list"). */
import { type ListView, securityCode } from "@daysync/shared/crypto";

/** A listed device's security code, the same on every device; none for a device the verified list does not name. */
export function securityCodeOf(list: ListView | undefined, keyId: string | null | undefined): string | undefined {
  const member = list?.ok && keyId ? list.list.members.get(keyId) : undefined;
  return member && securityCode(member);
}
