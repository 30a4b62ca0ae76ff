/** Password hashing with argon2id at OWASP's recommended minimum (19 MiB, 2 passes, 1 lane). */
import argon2 from "argon2";

const OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, OPTIONS);
}

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}

/**
 * The password hash of an account made through an identity provider: not an argon2 hash, so no password verifies
 * against it, and sign-in with any password fails as a wrong one does.
 */
export const NO_PASSWORD = "!none";

export const hasPassword = (hash: string) => hash !== NO_PASSWORD;

let dummyHash: Promise<string> | undefined;

/** Spends the same time as a real check, so a response never tells whether an email is registered. */
export async function verifyAgainstDummy(password: string): Promise<false> {
  dummyHash ??= hashPassword("daysync-dummy-password");
  await verifyPassword(await dummyHash, password);
  return false;
}
