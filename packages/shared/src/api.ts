/** Paths of the HTTP API and the live connection, one name for app, server and tests. */
export const API = {
  register: "/api/auth/register",
  login: "/api/auth/login",
  logout: "/api/auth/logout",
  me: "/api/me",
  retention: "/api/me/retention",
  days: "/api/days",
  dayMessages: (dayId: string) => `/api/days/${dayId}/messages`,
  messages: "/api/messages",
  search: "/api/search",
  live: "/api/live",
} as const;

export const SESSION_COOKIE = "daysync_session";
