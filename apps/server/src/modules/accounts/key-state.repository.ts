/**
 * The keys module's writes to the rows this module owns (issue 44): an account's epoch, due rotation and request to
 * start over on `users`, a session's public and signing keys on `sessions`. Keys ranks below accounts, so the
 * composition root hands it these; each runs on the database or transaction it is given.
 */
import type { KeyStateRows } from "../keys/index.ts";

export const keyStateRowsOfKeys: KeyStateRows = {
  async setDeviceKey(db, userId, sessionId, publicKey, keyId) {
    const result = await db
      .updateTable("sessions")
      .set({ public_key: publicKey, key_id: keyId })
      .where("user_id", "=", userId)
      .where("id", "=", sessionId)
      .where("public_key", "is", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },

  async setSigningKey(db, userId, sessionId, signingKey) {
    const result = await db
      .updateTable("sessions")
      .set({ signing_key: signingKey })
      .where("user_id", "=", userId)
      .where("id", "=", sessionId)
      .where("signing_key", "is", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  async markRotationDue(db, userId, now) {
    await db
      .updateTable("users")
      .set({ key_rotation_due_at: now })
      .where("id", "=", userId)
      .where("key_rotation_due_at", "is", null)
      .execute();
  },

  async setStartOverRequest(db, userId, request) {
    await db
      .updateTable("users")
      .set({ key_start_over_at: request?.requestedAt ?? null, key_start_over_session_id: request?.sessionId ?? null })
      .where("id", "=", userId)
      .execute();
  },

  async advance(db, userId, expected, epoch) {
    const result = await db
      .updateTable("users")
      .set({ key_epoch: epoch, key_rotation_due_at: null })
      .where("id", "=", userId)
      .where("key_epoch", expected === null ? "is" : "=", expected)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },
};
