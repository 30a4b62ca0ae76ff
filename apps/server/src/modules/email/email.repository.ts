/** One-time links sent by mail (only the sha256 of a token is stored), mails counted per account, and the recipients. */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Transaction } from "kysely";
import type { Db } from "../../db/database.ts";
import type { Database, EmailTokensTable, UsersTable } from "../../db/schema.ts";

export type Recipient = Pick<UsersTable, "id" | "name" | "email" | "disabled_at" | "email_verified_at">;
export type TokenPurpose = EmailTokensTable["purpose"];

/** 256 random bits, URL-safe: what a link carries in its fragment; only its sha256 is stored. */
const newToken = () => randomBytes(32).toString("base64url");
const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** Over the database, or over a transaction (`.in(trx)`) for work that must commit together. */
export function createEmailRepository(db: Db) {
  const recipients = () => db.selectFrom("users").select(["id", "name", "email", "disabled_at", "email_verified_at"]);
  return {
    in: (trx: Transaction<Database>) => createEmailRepository(trx),

    recipient: (userId: string): Promise<Recipient | undefined> => recipients().where("id", "=", userId).executeTakeFirst(),
    recipientByEmail: (email: string): Promise<Recipient | undefined> => recipients().where("email", "=", email).executeTakeFirst(),

    /** A new one-time link for the recipient's current address, valid `ttlMs` from `now`; answers its token. */
    async issueToken(to: Pick<Recipient, "id" | "email">, purpose: TokenPurpose, now: number, ttlMs: number): Promise<string> {
      await db.deleteFrom("email_tokens").where("expires_at", "<=", now).execute();
      const token = newToken();
      await db
        .insertInto("email_tokens")
        .values({ token_hash: hashToken(token), user_id: to.id, purpose, email: to.email, created_at: now, expires_at: now + ttlMs })
        .execute();
      return token;
    },

    /**
     * Uses up the link of this token and purpose if it is still valid at `now`: the account and the address it
     * was sent to, or undefined. One DELETE … RETURNING, so of two uses at once exactly one gets it (both engines).
     */
    consumeToken(token: string, purpose: TokenPurpose, now: number): Promise<{ user_id: string; email: string } | undefined> {
      return db
        .deleteFrom("email_tokens")
        .where("token_hash", "=", hashToken(token))
        .where("purpose", "=", purpose)
        .where("expires_at", ">", now)
        .returning(["user_id", "email"])
        .executeTakeFirst();
    },

    /**
     * Counts a mail of `kind` to the account and answers how many it got within the window, this one included. Run in
     * a unit of work holding the account's row (`forUser`), so requests at once count one after another. Older rows
     * of the account go.
     */
    async countSend(userId: string, kind: string, now: number, windowMs: number): Promise<number> {
      const since = now - windowMs;
      await db.deleteFrom("email_sends").where("user_id", "=", userId).where("sent_at", "<=", since).execute();
      await db.insertInto("email_sends").values({ id: randomUUID(), user_id: userId, kind, sent_at: now }).execute();
      const row = await db
        .selectFrom("email_sends")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("user_id", "=", userId)
        .where("kind", "=", kind)
        .where("sent_at", ">", since)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
  };
}

/** Deletes every mailed link of the account (sign-in and verification): its address changed (issue 42). */
export async function deleteEmailLinksOf(db: Db, userId: string): Promise<void> {
  await db.deleteFrom("email_tokens").where("user_id", "=", userId).execute();
}

export type EmailRepository = ReturnType<typeof createEmailRepository>;

/** Account deletion (`flows/account-deletion.ts`): the account's email links and the count of mails sent to it. */
export async function eraseEmailOfAccount(db: Db, userId: string): Promise<void> {
  await db.deleteFrom("email_tokens").where("user_id", "=", userId).execute();
  await db.deleteFrom("email_sends").where("user_id", "=", userId).execute();
}
