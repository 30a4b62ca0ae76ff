/** Every React Query key of the app, so the live connection and the views agree. */
export const queryKeys = {
  me: ["me"] as const,
  days: ["days"] as const,
  dayMessagesAll: ["day-messages"] as const,
  dayMessages: (dayId: string) => ["day-messages", dayId] as const,
  searchAll: ["search"] as const,
  search: (q: string) => ["search", q] as const,
  devices: ["devices"] as const,
};
