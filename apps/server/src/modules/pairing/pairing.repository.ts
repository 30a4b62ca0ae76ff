/** Pairing requests: single-use, short-lived; every state change is one conditional UPDATE, so races have one winner. */
import type { Transaction } from "kysely";
import type { Db } from "../../db/database.ts";
import type { Database, PairingRequestsTable } from "../../db/schema.ts";

export type PairingRow = PairingRequestsTable;

export function createPairingRepository(db: Db) {
  return {
    /** Over a unit of work's transaction, so a step and its notice commit together. */
    in: (trx: Transaction<Database>) => createPairingRepository(trx),

    async insert(row: PairingRow): Promise<void> {
      await db.insertInto("pairing_requests").values(row).execute();
    },

    findById(id: string): Promise<PairingRow | undefined> {
      return db.selectFrom("pairing_requests").selectAll().where("id", "=", id).executeTakeFirst();
    },

    /** `offer`: a code shown by Add a device (decision 013), else one shown by a device asking to be signed in. */
    findByCodeHash(codeHash: string, offer: boolean): Promise<PairingRow | undefined> {
      return db
        .selectFrom("pairing_requests")
        .selectAll()
        .where("code_hash", "=", codeHash)
        .where("offered_by", offer ? "is not" : "is", null)
        .executeTakeFirst();
    },

    /** The newest request shown with this short code; older ones with the same code have expired or been answered. */
    findByShortCode(shortCode: string, offer: boolean): Promise<PairingRow | undefined> {
      return db
        .selectFrom("pairing_requests")
        .selectAll()
        .where("short_code", "=", shortCode)
        .where("offered_by", offer ? "is not" : "is", null)
        .orderBy("created_at", "desc")
        .limit(1)
        .executeTakeFirst();
    },

    /**
     * offered → pending: the new device opens an offer and holds the secret from now on; the approval gets its own
     * `expiresAt`. False when another device opened it first or it expired.
     */
    async claim(
      id: string,
      claim: {
        secretHash: string;
        userAgent: string;
        ip: string;
        publicKey: string | null;
        keyProof: string | null;
        requesterShare: string | null;
      },
      now: number,
      expiresAt: number,
    ): Promise<boolean> {
      const result = await db
        .updateTable("pairing_requests")
        .set({
          status: "pending",
          secret_hash: claim.secretHash,
          user_agent: claim.userAgent,
          ip: claim.ip,
          public_key: claim.publicKey,
          key_proof: claim.keyProof,
          requester_share: claim.requesterShare,
          created_at: now,
          expires_at: expiresAt,
        })
        .where("id", "=", id)
        .where("status", "=", "offered")
        .where("expires_at", ">", now)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /**
     * pending → approved/denied, only while unexpired; false when another answer (or the clock) won.
     * `approver`: the account and the session answering (the approval ends with that session). `offeredBy`: an offer's
     * request may only be answered by the session that showed it. `handover`: the approval's key handover as JSON,
     * kept for the exchange.
     */
    async decide(
      id: string,
      status: "approved" | "denied",
      approver: { userId: string; sessionId: string },
      now: number,
      offeredBy?: string,
      handover: string | null = null,
    ): Promise<boolean> {
      let update = db
        .updateTable("pairing_requests")
        .set({ status, user_id: approver.userId, approved_by: approver.sessionId, decided_at: now, handover })
        .where("id", "=", id)
        .where("status", "=", "pending")
        .where("expires_at", ">", now);
      update = offeredBy ? update.where("offered_by", "=", offeredBy) : update.where("offered_by", "is", null);
      const result = await update.executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Stores the hash of the one login token of an approved request; false if one was already minted. */
    async mintToken(id: string, tokenHash: string, tokenExpiresAt: number): Promise<boolean> {
      const result = await db
        .updateTable("pairing_requests")
        .set({ token_hash: tokenHash, token_expires_at: tokenExpiresAt })
        .where("id", "=", id)
        .where("status", "=", "approved")
        .where("token_hash", "is", null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /**
     * approved → used, if the token is this request's and still fresh; false for a replay or a foreign token. The
     * handover leaves the row with it (the exchange moves it into the key tables).
     */
    async consumeToken(id: string, tokenHash: string, now: number): Promise<boolean> {
      const result = await db
        .updateTable("pairing_requests")
        .set({ status: "used", handover: null })
        .where("id", "=", id)
        .where("status", "=", "approved")
        .where("token_hash", "=", tokenHash)
        .where("token_expires_at", ">", now)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /**
     * A typed code's exchange moves one step (pairing-typed.service.ts): from one of `from`, only while unexpired and
     * only for a request with a typed code's exchange (asked by the new device, or an offer it joined with its share);
     * false when another step (or the clock) came first.
     */
    async moveTyped(id: string, from: PairingRow["status"][], now: number, set: Partial<PairingRow>): Promise<boolean> {
      const result = await db
        .updateTable("pairing_requests")
        .set(set)
        .where("id", "=", id)
        .where("status", "in", from)
        .where("expires_at", ">", now)
        .where("requester_share", "is not", null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async deleteExpiredBefore(before: number): Promise<void> {
      await db.deleteFrom("pairing_requests").where("expires_at", "<", before).execute();
    },
  };
}

/**
 * Ends what a session left open (issue 42): the offers it showed and the approvals it gave that no device has used yet
 * go with it, so the waiting device hears "failed" and no exchange can follow. In the transaction that ends the session.
 */
export async function endPairingsOfSession(db: Db, sessionId: string): Promise<void> {
  await db
    .deleteFrom("pairing_requests")
    .where((eb) => eb.or([eb("approved_by", "=", sessionId), eb("offered_by", "=", sessionId), eb("answered_by", "=", sessionId)]))
    .where("status", "in", ["offered", "pending", "answered", "confirmed", "approved"])
    .execute();
}

export type PairingRepository = ReturnType<typeof createPairingRepository>;

/** Account deletion (`flows/account-deletion.ts`): the account's pairings, open or done. */
export async function erasePairingsOfAccount(db: Db, userId: string): Promise<void> {
  await db.deleteFrom("pairing_requests").where("user_id", "=", userId).execute();
}
