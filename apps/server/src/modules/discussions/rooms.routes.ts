/** The routes of encrypted discussions (docs/API.md, "Encrypted discussions"): parse, require the session, call. */
import {
  admitSchema,
  createRoomSchema,
  discussionIdParamsSchema,
  idJoiningSchema,
  joinAnswerSchema,
  joinConfirmSchema,
  joinRefusalSchema,
  joinRequestParamsSchema,
  joinRequestSchema,
  linkJoinSchema,
  ownValuesSchema,
  publicIdParamsSchema,
  ROOMS_API,
  roomRequestParamsSchema,
  roomResponseSchemas,
  rotationSchema,
  sealedValueMaxLength,
  sealedValueSchema,
} from "@daysync/shared";
import { type ApiServer, answers } from "../../http/answers.ts";
import { requireAuth } from "../../http/auth.ts";
import { parse } from "../../http/validate.ts";
import type { JoinLimits } from "./discussions.routes.ts";
import type { RoomRequestsService } from "./room-requests.service.ts";
import type { RoomsService } from "./rooms.service.ts";

const roomPatchSchema = idJoiningSchema
  .partial()
  .extend({ sealed_title: sealedValueSchema("sealed_title", sealedValueMaxLength(200)).optional() });

export function roomsRoutes(
  app: ApiServer,
  deps: {
    rooms: RoomsService;
    requests: RoomRequestsService;
    /** The clear join's limits (per address and per session), for every way in by ID. */
    joinOptions: JoinLimits;
  },
) {
  const { rooms, requests } = deps;
  const room = "/api/discussions/:id/room";
  const byId = "/api/discussions/join/:publicId";
  const joinerRequest = "/api/discussions/join-requests/:requestId";

  app.post(ROOMS_API.create, { schema: answers(roomResponseSchemas.room) }, async (request, reply) => {
    const auth = requireAuth(request);
    const input = parse(createRoomSchema, request.body);
    return reply.status(201).send(await rooms.create(auth.userId, input));
  });

  app.get(`${byId}/room`, { ...deps.joinOptions, schema: answers(roomResponseSchemas.lookup) }, async (request) => {
    requireAuth(request);
    const { publicId } = parse(publicIdParamsSchema, request.params);
    return requests.lookup(publicId);
  });

  app.post(`${byId}/link`, { ...deps.joinOptions, schema: answers(roomResponseSchemas.room) }, async (request, reply) => {
    const auth = requireAuth(request);
    const { publicId } = parse(publicIdParamsSchema, request.params);
    const input = parse(linkJoinSchema, request.body);
    const { state, joined } = await rooms.joinByLink(auth.userId, publicId, input);
    return reply.status(joined ? 201 : 200).send(state);
  });

  app.post(`${byId}/requests`, { ...deps.joinOptions, schema: answers(roomResponseSchemas.request) }, async (request, reply) => {
    const auth = requireAuth(request);
    const { publicId } = parse(publicIdParamsSchema, request.params);
    const input = parse(joinRequestSchema, request.body);
    return reply.status(201).send({ request: await requests.create(auth.userId, publicId, input) });
  });

  app.get(joinerRequest, { schema: answers(roomResponseSchemas.request) }, async (request) => {
    const auth = requireAuth(request);
    const { requestId } = parse(joinRequestParamsSchema, request.params);
    return { request: await requests.own(auth.userId, requestId) };
  });

  app.post(`${joinerRequest}/confirm`, { schema: answers(roomResponseSchemas.request) }, async (request) => {
    const auth = requireAuth(request);
    const { requestId } = parse(joinRequestParamsSchema, request.params);
    const { confirmation } = parse(joinConfirmSchema, request.body);
    return { request: await requests.confirm(auth.userId, requestId, confirmation) };
  });

  app.post(`${joinerRequest}/refuse`, { schema: answers(roomResponseSchemas.request) }, async (request) => {
    const auth = requireAuth(request);
    const { requestId } = parse(joinRequestParamsSchema, request.params);
    const input = parse(joinRefusalSchema, request.body);
    return { request: await requests.refuse(auth.userId, requestId, input) };
  });

  app.get(room, { schema: answers(roomResponseSchemas.room) }, async (request) => {
    const auth = requireAuth(request);
    const { id } = parse(discussionIdParamsSchema, request.params);
    return rooms.state(auth.userId, id);
  });

  app.patch(room, { schema: answers(roomResponseSchemas.room) }, async (request) => {
    const auth = requireAuth(request);
    const { id } = parse(discussionIdParamsSchema, request.params);
    return rooms.update(auth.userId, id, parse(roomPatchSchema, request.body));
  });

  app.post(`${room}/generations`, { schema: answers(roomResponseSchemas.room) }, async (request, reply) => {
    const auth = requireAuth(request);
    const { id } = parse(discussionIdParamsSchema, request.params);
    const input = parse(rotationSchema, request.body);
    return reply.status(201).send(await rooms.rotate(auth.userId, id, input));
  });

  app.put(`${room}/own`, { schema: answers(roomResponseSchemas.room) }, async (request) => {
    const auth = requireAuth(request);
    const { id } = parse(discussionIdParamsSchema, request.params);
    return rooms.putOwn(auth.userId, id, parse(ownValuesSchema, request.body));
  });

  app.get(`${room}/requests`, { schema: answers(roomResponseSchemas.requests) }, async (request) => {
    const auth = requireAuth(request);
    const { id } = parse(discussionIdParamsSchema, request.params);
    return { requests: await requests.list(auth.userId, id) };
  });

  app.post(`${room}/requests/:requestId/answer`, { schema: answers(roomResponseSchemas.request) }, async (request) => {
    const auth = requireAuth(request);
    const { id, requestId } = parse(roomRequestParamsSchema, request.params);
    return { request: await requests.answer(auth.userId, id, requestId, parse(joinAnswerSchema, request.body)) };
  });

  app.post(`${room}/requests/:requestId/admit`, { schema: answers(roomResponseSchemas.request) }, async (request) => {
    const auth = requireAuth(request);
    const { id, requestId } = parse(roomRequestParamsSchema, request.params);
    return { request: await requests.admit(auth.userId, id, requestId, parse(admitSchema, request.body)) };
  });
}
