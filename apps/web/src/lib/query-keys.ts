/** Every React Query key of the app, so the live connection and the views agree. */
export const queryKeys = {
  me: ["me"] as const,
  days: ["days"] as const,
  dayMessagesAll: ["day-messages"] as const,
  dayMessages: (dayId: string) => ["day-messages", dayId] as const,
  searchAll: ["search"] as const,
  search: (q: string) => ["search", q] as const,
  devices: ["devices"] as const,
  /** The user's open discussions (sidebar). */
  discussions: ["discussions"] as const,
  /** One discussion with its members. */
  discussionAll: ["discussion"] as const,
  discussion: (id: string) => ["discussion", id] as const,
  discussionMessagesAll: ["discussion-messages"] as const,
  discussionMessages: (id: string) => ["discussion-messages", id] as const,
  /** Why the user is no longer in a discussion (set by the live connection), for a view still showing it. */
  discussionClosed: (id: string) => ["discussion-closed", id] as const,
};
