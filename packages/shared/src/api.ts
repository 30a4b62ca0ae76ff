/** Paths of the HTTP API and the live connection, one name for app, server and tests. */
export const API = {
  register: "/api/auth/register",
  login: "/api/auth/login",
  logout: "/api/auth/logout",
  me: "/api/me",
  /** GET: answers `{ ok: true }` while the server runs; the CLI asks it to tell "unreachable" from "not signed in". */
  health: "/api/health",
  /** Like `me`, but answers 200 with `{ user: null }` to a visitor (no error for the browser to log). */
  session: "/api/session",
  retention: "/api/me/retention",
  days: "/api/days",
  /** GET: the day with its live messages. DELETE: clears the day (deletes all its messages). */
  dayMessages: (dayId: string) => `/api/days/${dayId}/messages`,
  messages: "/api/messages",
  /** GET: one live message of the user, with its day. DELETE: deletes it for good. */
  message: (messageId: string) => `/api/messages/${encodeURIComponent(messageId)}`,
  search: "/api/search",
  live: "/api/live",
  /** tus endpoint: POST creates an upload, PATCH/HEAD/DELETE on its Location. */
  uploads: "/api/uploads",
  uploadLimit: "/api/uploads/limit",
  /** GET: the account's file storage, used and allowed. */
  storage: "/api/storage",
  file: (uploadId: string) => `/api/files/${uploadId}`,
  /** GET: 200 while the process answers (also at `/api/health`), for a liveness probe. */
  healthLive: "/api/health/live",
  /** GET: 200 when the database, Redis (when configured) and the files folder work; 503 naming what failed. */
  healthReady: "/api/health/ready",
} as const;

export const SESSION_COOKIE = "daysync_session";
