/** Reaches into a running server's SQLite file for what no person can do from the app: let time pass on the server. */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { dayKeyOf } from "@daysync/shared";
import SQLite from "better-sqlite3";

/** Runs `change` in one transaction on the server's database file, beside the server's own connection. */
function changeServerData(dataDir: string, change: (db: SQLite.Database) => void): void {
  const db = new SQLite(path.join(dataDir, "daysync.sqlite"));
  try {
    db.pragma("busy_timeout = 5000");
    db.transaction(change)(db);
  } finally {
    db.close();
  }
}

/**
 * Moves every message of the account `ms` into the past, as if the server's clock had run on: the
 * server then finds them expired on its next read or sweep. (The server's clock is the real one.)
 */
export function ageMessagesOf(dataDir: string, email: string, ms: number): void {
  changeServerData(dataDir, (db) => {
    db.prepare("UPDATE messages SET created_at = created_at - ? WHERE user_id = (SELECT id FROM users WHERE email = ?)").run(ms, email);
  });
}

/**
 * Moves one day, and its messages, to an earlier calendar date: the server only takes sends dated today
 * somewhere on Earth, so an older day is made from today's.
 */
export function moveDayTo(dataDir: string, dayId: string, date: string): void {
  changeServerData(dataDir, (db) => {
    db.prepare("UPDATE date_messages SET date = ?, day_key = ? WHERE id = ?").run(date, dayKeyOf(date), dayId);
    db.prepare("UPDATE messages SET date = ? WHERE date_message_id = ?").run(date, dayId);
  });
}

/** Deletes a message's row and nothing else, as a server that drops it would: no deletion, no note, no event. */
export function dropMessage(dataDir: string, messageId: string): void {
  changeServerData(dataDir, (db) => {
    db.prepare("DELETE FROM messages WHERE id = ?").run(messageId);
  });
}

/** Changes one byte inside a stored message's sealed text, as someone with the database could. */
export function tamperWithMessage(dataDir: string, messageId: string): void {
  changeServerData(dataDir, (db) => {
    const row = db.prepare("SELECT content FROM messages WHERE id = ?").get(messageId) as { content: string } | undefined;
    if (!row) throw new Error(`No message ${messageId}`);
    const at = row.content.length - 10;
    const flipped = row.content[at] === "A" ? "B" : "A";
    db.prepare("UPDATE messages SET content = ? WHERE id = ?").run(
      `${row.content.slice(0, at)}${flipped}${row.content.slice(at + 1)}`,
      messageId,
    );
  });
}

/** Flips one byte of a stored file at `at` (from its end when negative), as someone with the files folder could. */
export function tamperWithFile(dataDir: string, fileUrl: string, at: number): void {
  const file = path.join(dataDir, "files", fileUrl.split("/").pop() ?? "");
  const bytes = readFileSync(file);
  const index = at < 0 ? bytes.length + at : at;
  bytes[index] = (bytes[index] ?? 0) ^ 0x01;
  writeFileSync(file, bytes);
}

/**
 * Runs `write` while the account's row says it has no key epoch, then puts the epoch back: what an operator does to
 * store a message in clear in a keyed account (the server refuses clear sends into one otherwise).
 */
export async function asIfNotKeyed(dataDir: string, email: string, write: () => Promise<void>): Promise<void> {
  let epoch: unknown = null;
  changeServerData(dataDir, (db) => {
    epoch = (db.prepare("SELECT key_epoch FROM users WHERE email = ?").get(email) as { key_epoch: unknown }).key_epoch;
    db.prepare("UPDATE users SET key_epoch = NULL WHERE email = ?").run(email);
  });
  try {
    await write();
  } finally {
    changeServerData(dataDir, (db) => db.prepare("UPDATE users SET key_epoch = ? WHERE email = ?").run(epoch, email));
  }
}

/** A message's row as the server's database holds it (its text or a file's name, sealed or not), for server-blind checks. */
export function storedMessageRow(dataDir: string, messageId: string): { content: string; filename: string } | undefined {
  const db = new SQLite(path.join(dataDir, "daysync.sqlite"), { readonly: true });
  try {
    db.pragma("busy_timeout = 5000");
    return db.prepare("SELECT content, filename FROM messages WHERE id = ?").get(messageId) as
      | { content: string; filename: string }
      | undefined;
  } finally {
    db.close();
  }
}
