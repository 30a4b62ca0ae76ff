/** Response bodies of docs/API.md, as the app reads them. */
import type { DateMessages, Message, SearchResult, User } from "@daysync/shared";

export interface UserResponse {
  user: User;
}
export interface SessionResponse {
  user: User | null;
}
export interface DaysResponse {
  days: DateMessages[];
}
export interface DayMessagesResponse {
  day: DateMessages;
  messages: Message[];
}
export interface MessageSavedResponse {
  message: Message;
  day: DateMessages;
}
export interface SearchResponse {
  results: SearchResult[];
}
