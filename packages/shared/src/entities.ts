/** Entities as they travel in the API's JSON; field names are the spec's. */

export type MessageType = "text" | "image" | "video" | "file" | "audio";

export interface User {
  id: string;
  name: string;
  email: string;
  actual_subscription_id: string;
  title_subscription: string;
  subscription_type_id: number;
  /** Minutes a message lives; null means unlimited. */
  max_message_duration: number | null;
  price_per_month: number;
  subscription_duration: number;
  date_subscription: string;
  description_subscription: string;
  date_expiration_subscription: string;
  /** Creation time, ms since the epoch. */
  timestamps: number;
}

/**
 * A user's calendar day. Its summary (last message, count) covers only unexpired messages, wherever it is
 * served; it is empty ("" and 0) once every message of the day has expired.
 */
export interface DateMessages {
  id: string;
  /** M/d/yyyy of the sending device. */
  date: string;
  last_message_time: string;
  last_message_type: MessageType | "";
  /** The start of the newest live message's text, or its file name. */
  last_message: string;
  count_messages: number;
  user_id: string;
  /** Creation time, ms since the epoch. */
  timestamps: number;
}

export interface Message {
  id: string;
  type: MessageType;
  content: string;
  filename: string;
  file_url: string;
  /** M/d/yyyy */
  date: string;
  /** h:mm a */
  time: string;
  url: string;
  user_id: string;
  date_message_id: string;
  /** Creation time, ms since the epoch; retention counts from here. */
  timestamps: number;
}

export interface SearchResult {
  message: Message;
  day: DateMessages;
}

/** Every error the API returns has this body. */
export interface ApiErrorBody {
  error: { code: string; message: string; field?: string };
}

/** Error codes the app acts on, beyond showing their sentence. */
export const API_ERROR_CODES = {
  /** 410 to a retried send: that message was stored, then expired; it is gone for good. */
  expired: "expired",
} as const;
