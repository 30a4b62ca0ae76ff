import type { DateMessages, Message, MessageType } from "@daysync/shared";
import type { DateMessagesTable, MessagesTable } from "../db/schema.ts";

export function presentDay(row: DateMessagesTable): DateMessages {
  return {
    id: row.id,
    date: row.date,
    last_message_time: row.last_message_time,
    last_message_type: row.last_message_type as MessageType | "",
    last_message: row.last_message,
    ...(row.last_message_epoch === null
      ? {}
      : {
          last_message_epoch: Number(row.last_message_epoch),
          last_message_id: row.last_message_id ?? "",
          last_message_device_id: row.last_message_device_id ?? "",
        }),
    count_messages: Number(row.count_messages),
    user_id: row.user_id,
    timestamps: Number(row.created_at),
  };
}

/** What every reader of a message sees of it, in a day or in a discussion. */
export function presentMessageContent(row: MessagesTable) {
  return {
    id: row.id,
    type: row.type as MessageType,
    content: row.content,
    filename: row.filename,
    file_url: row.file_url,
    date: row.date,
    time: row.time,
    url: row.url,
    timestamps: Number(row.created_at),
    ...(row.file_size === null ? {} : { file_size: Number(row.file_size) }),
    ...(row.epoch === null ? {} : { epoch: Number(row.epoch), preview: row.preview }),
    ...(row.epoch === null || row.file_key === "" ? {} : { file_key: row.file_key }),
  };
}

/** A message as its owner sees it, with the device that sent it (leave `device` out for anyone else). */
export function presentMessage(row: MessagesTable): Message {
  return {
    ...presentMessageContent(row),
    user_id: row.user_id,
    date_message_id: row.date_message_id ?? "",
    ...(row.device_id ? { device: { id: row.device_id, name: row.device_name ?? "" } } : {}),
  };
}
