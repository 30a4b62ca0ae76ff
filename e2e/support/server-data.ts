/** Reaches into a running server's SQLite file for what no person can do from the app: let time pass on the server. */
import path from "node:path";
import SQLite from "better-sqlite3";

/**
 * Moves every message of the account `ms` into the past, as if the server's clock had run on: the
 * server then finds them expired on its next read or sweep. (The server's clock is the real one.)
 */
export function ageMessagesOf(dataDir: string, email: string, ms: number): void {
  const db = new SQLite(path.join(dataDir, "daysync.sqlite"));
  try {
    db.pragma("busy_timeout = 5000");
    db.prepare("UPDATE messages SET created_at = created_at - ? WHERE user_id = (SELECT id FROM users WHERE email = ?)").run(ms, email);
  } finally {
    db.close();
  }
}
