/**
 * A message sent as a frame on the live socket (issue 47): it goes where `POST /api/messages` goes, and the answer is
 * a frame naming the send by its `ref`, with what the HTTP answer would have said (its body, its status).
 */
import type { ClientLiveMessage, ServerLiveMessage } from "@daysync/shared";
import type { FastifyRequest } from "fastify";
import { errorAnswerOf } from "../http/errors.ts";
import type { OwnSend } from "../modules/messages/index.ts";

type SendFrame = Extract<ClientLiveMessage, { type: "send" }>;

export async function answerSend(send: OwnSend, request: FastifyRequest, frame: SendFrame): Promise<ServerLiveMessage> {
  try {
    const { message, day, created } = await send(request, frame.body);
    return { type: "sent", ref: frame.ref, created, message, day };
  } catch (error) {
    return { type: "send_failed", ...refusalOf(error, request, frame.ref, "socket send failed") };
  }
}

/** A refusal frame's fields for what the HTTP error handler would have answered `error` with (a 500 is logged as there). */
export function refusalOf(error: unknown, request: FastifyRequest, ref: string, failed: string) {
  const answer = errorAnswerOf(error);
  if (answer.status >= 500) request.log.error({ err: error }, failed);
  const retry = answer.retryAfterSeconds === undefined ? {} : { retry_after: answer.retryAfterSeconds };
  return { ref, status: answer.status, ...retry, ...answer.body };
}
