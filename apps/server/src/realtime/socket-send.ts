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
    const answer = errorAnswerOf(error);
    if (answer.status >= 500) request.log.error({ err: error }, "socket send failed");
    const retry = answer.retryAfterSeconds === undefined ? {} : { retry_after: answer.retryAfterSeconds };
    return { type: "send_failed", ref: frame.ref, status: answer.status, ...retry, ...answer.body };
  }
}
