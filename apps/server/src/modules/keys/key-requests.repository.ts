/** Typed-code approval requests of locked devices (docs/protocol/encryption.md), with the sessions on both sides. */
import type { Transaction } from "kysely";
import type { Db } from "../../db/database.ts";
import type { Database, KeyRequestStatus, KeyRequestsTable, KeyRosterTable, KeyWrapsTable } from "../../db/schema.ts";
import type { KeyRequestRow } from "../../presenters/key-requests.presenter.ts";
import { holdsCurrentKey } from "./keys.repository.ts";

/** The statuses of a request still in progress: the account's devices show it, and it may move on. */
export const OPEN_STATUSES: KeyRequestStatus[] = ["pending", "answered", "confirmed"];

/** Over the database, or over a transaction (`.in(trx)`) for work that must commit together. */
export function createKeyRequestsRepository(db: Db) {
  /** Requests with their requesting session (inner: a request goes with it) and the answering one (left: it may have ended). */
  const withSessions = () =>
    db
      .selectFrom("key_requests")
      .innerJoin("sessions as requester", "requester.id", "key_requests.session_id")
      .leftJoin("sessions as approver", "approver.id", "key_requests.approver_session_id")
      .selectAll("key_requests")
      .select([
        "requester.user_agent",
        "requester.ip",
        "requester.created_at as signed_in_at",
        "requester.last_seen_at",
        "requester.name",
        "requester.public_key as requester_public_key",
        "requester.key_id as requester_key_id",
        "approver.public_key as approver_public_key",
        "approver.key_id as approver_key_id",
      ])
      // As the Devices list says it: whether the asking device holds the current epoch (it may, with an approval not yet confirmed).
      .select((eb) => holdsCurrentKey(eb.ref("requester.user_id"), eb.ref("requester.key_id")));

  type Joined = Awaited<ReturnType<ReturnType<typeof withSessions>["execute"]>>[number];
  const rowOf = (row: Joined): KeyRequestRow | undefined => {
    // A requesting session without a key cannot have made a request; a row without one is not served.
    if (!row.requester_public_key || !row.requester_key_id) return undefined;
    return {
      id: row.id,
      user_id: row.user_id,
      session_id: row.session_id,
      requester_share: row.requester_share,
      approver_session_id: row.approver_session_id,
      approver_share: row.approver_share,
      approver_confirmation: row.approver_confirmation,
      requester_confirmation: row.requester_confirmation,
      handover_confirmation: row.handover_confirmation,
      failures: Number(row.failures),
      status: row.status,
      created_at: row.created_at,
      expires_at: row.expires_at,
      device: {
        id: row.session_id,
        user_agent: row.user_agent,
        ip: row.ip,
        created_at: row.signed_in_at,
        last_seen_at: row.last_seen_at,
        name: row.name,
        key_id: row.requester_key_id,
        holds_current_key: row.holds_current_key,
      },
      requester_public_key: row.requester_public_key,
      requester_key_id: row.requester_key_id,
      approver_public_key: row.approver_public_key ?? null,
      approver_key_id: row.approver_key_id ?? null,
    };
  };

  return {
    in: (trx: Transaction<Database>) => createKeyRequestsRepository(trx),

    /** One request of the user, whatever its status or age (the service decides what it may serve). */
    async request(userId: string, id: string): Promise<KeyRequestRow | undefined> {
      const row = await withSessions().where("key_requests.user_id", "=", userId).where("key_requests.id", "=", id).executeTakeFirst();
      return row && rowOf(row);
    },

    /** The user's requests of these statuses that have not expired at `now`, oldest first. */
    async live(userId: string, statuses: KeyRequestStatus[], now: number): Promise<KeyRequestRow[]> {
      const rows = await withSessions()
        .where("key_requests.user_id", "=", userId)
        .where("key_requests.status", "in", statuses)
        .where("key_requests.expires_at", ">", now)
        .orderBy("key_requests.created_at")
        .orderBy("key_requests.id")
        .execute();
      return rows.flatMap((row) => rowOf(row) ?? []);
    },

    /** The ids of the session's requests still open at `now`. */
    async openOfSession(userId: string, sessionId: string, now: number): Promise<string[]> {
      const rows = await db
        .selectFrom("key_requests")
        .select("id")
        .where("user_id", "=", userId)
        .where("session_id", "=", sessionId)
        .where("status", "in", OPEN_STATUSES)
        .where("expires_at", ">", now)
        .execute();
      return rows.map((row) => row.id);
    },

    /** Deletes the user's requests that expired before `before`: nobody is served them any more. */
    async deleteExpired(userId: string, before: number): Promise<void> {
      await db.deleteFrom("key_requests").where("user_id", "=", userId).where("expires_at", "<", before).execute();
    },

    async insert(row: KeyRequestsTable): Promise<void> {
      await db.insertInto("key_requests").values(row).execute();
    },

    /**
     * Moves a request of the user from one of `from` to new values, only while it has not expired at `now`; false when
     * another device got there first (one statement, so it holds on both engines).
     */
    async move(
      userId: string,
      id: string,
      from: KeyRequestStatus[],
      now: number,
      set: Partial<
        Pick<
          KeyRequestsTable,
          | "status"
          | "approver_session_id"
          | "approver_share"
          | "approver_confirmation"
          | "requester_confirmation"
          | "handover_confirmation"
          | "failures"
        >
      >,
    ): Promise<boolean> {
      const result = await db
        .updateTable("key_requests")
        .set(set)
        .where("user_id", "=", userId)
        .where("id", "=", id)
        .where("status", "in", from)
        .where("expires_at", ">", now)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Stores an approval's wraps and roster row; a wrap the new device already had of an epoch is replaced. */
    async insertHandover(wraps: KeyWrapsTable[], roster: KeyRosterTable): Promise<void> {
      for (const wrap of wraps) {
        await db
          .insertInto("key_wraps")
          .values(wrap)
          .onConflict((oc) =>
            oc.columns(["user_id", "epoch", "recipient_key_id"]).doUpdateSet({
              sender_key_id: wrap.sender_key_id,
              mode: wrap.mode,
              enc: wrap.enc,
              ciphertext: wrap.ciphertext,
              created_at: wrap.created_at,
            }),
          )
          .execute();
      }
      await db
        .insertInto("key_roster")
        .values(roster)
        .onConflict((oc) =>
          oc
            .columns(["user_id", "epoch", "key_id"])
            .doUpdateSet({ added_by_key_id: roster.added_by_key_id, added_at: roster.added_at, tag: roster.tag }),
        )
        .execute();
    },

    /**
     * Takes back what an approval stored when the new device says No after it: the wraps the approver sealed for it
     * and the roster rows the approver added for it. Its own earlier wraps and rows stay.
     */
    async removeHandover(userId: string, recipientKeyId: string, approverKeyId: string): Promise<void> {
      await db
        .deleteFrom("key_wraps")
        .where("user_id", "=", userId)
        .where("recipient_key_id", "=", recipientKeyId)
        .where("sender_key_id", "=", approverKeyId)
        .execute();
      await db
        .deleteFrom("key_roster")
        .where("user_id", "=", userId)
        .where("key_id", "=", recipientKeyId)
        .where("added_by_key_id", "=", approverKeyId)
        .execute();
    },
  };
}

export type KeyRequestsRepository = ReturnType<typeof createKeyRequestsRepository>;
