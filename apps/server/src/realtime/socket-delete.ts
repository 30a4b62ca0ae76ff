/**
 * A message of the user's days deleted by a frame on the live socket (issue 47): it goes where
 * `DELETE /api/messages/:id` goes, and the answer is a frame naming the deletion by its `ref`, with what the HTTP
 * answer would have said (its body, its status).
 */
import type { ClientLiveMessage, ServerLiveMessage } from "@daysync/shared";
import type { FastifyRequest } from "fastify";
import type { OwnDelete } from "../modules/messages/index.ts";
import { refusalOf } from "./socket-send.ts";

type DeleteFrame = Extract<ClientLiveMessage, { type: "delete" }>;

export async function answerDelete(remove: OwnDelete, request: FastifyRequest, frame: DeleteFrame): Promise<ServerLiveMessage> {
  try {
    const { deleted } = await remove(request, { id: frame.id });
    return { type: "deleted", ref: frame.ref, deleted };
  } catch (error) {
    return { type: "delete_failed", ...refusalOf(error, request, frame.ref, "socket delete failed") };
  }
}
