import { createHash } from "node:crypto";
import type { TestServer } from "./test-server.ts";

/** Everything stored of one user, and the bytes of their file. */
export async function snapshotOf(server: Pick<TestServer, "db" | "storage">, userId: string, uploadId: string) {
  const { db, storage } = server;
  const bytes: Buffer[] = [];
  for await (const chunk of storage.read(uploadId)) bytes.push(chunk as Buffer);
  return {
    user: await db.selectFrom("users").selectAll().where("id", "=", userId).executeTakeFirst(),
    sessions: await db.selectFrom("sessions").selectAll().where("user_id", "=", userId).execute(),
    days: await db.selectFrom("date_messages").selectAll().where("user_id", "=", userId).execute(),
    messages: await db.selectFrom("messages").selectAll().where("user_id", "=", userId).execute(),
    uploads: await db.selectFrom("uploads").selectAll().where("user_id", "=", userId).execute(),
    push: await db.selectFrom("push_subscriptions").selectAll().where("user_id", "=", userId).execute(),
    subscriptions: await db.selectFrom("subscriptions").selectAll().where("user_id", "=", userId).execute(),
    events: await db.selectFrom("user_events").selectAll().where("user_id", "=", userId).execute(),
    spaces: await db.selectFrom("spaces").selectAll().where("created_by", "=", userId).execute(),
    memberships: await db.selectFrom("space_members").selectAll().where("user_id", "=", userId).execute(),
    keyWraps: await db.selectFrom("key_wraps").selectAll().where("user_id", "=", userId).execute(),
    keyRoster: await db.selectFrom("key_roster").selectAll().where("user_id", "=", userId).execute(),
    keyRecovery: await db.selectFrom("key_recovery").selectAll().where("user_id", "=", userId).execute(),
    file: createHash("sha256").update(Buffer.concat(bytes)).digest("hex"),
  };
}
