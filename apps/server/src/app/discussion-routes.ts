/** The discussions, clear and encrypted (issue 45), with their routes: one service for both, and the rooms' two. */
import type { Clock } from "../clock.ts";
import type { Config } from "../config/config.ts";
import type { UnitOfWork } from "../feed/unit-of-work.ts";
import type { ApiServer } from "../http/answers.ts";
import { discussionsRoutes } from "../modules/discussions/discussions.routes.ts";
import { createDiscussionsService } from "../modules/discussions/discussions.service.ts";
import { createRoomRequestsService } from "../modules/discussions/room-requests.service.ts";
import { roomsRoutes } from "../modules/discussions/rooms.routes.ts";
import { createRoomsService } from "../modules/discussions/rooms.service.ts";
import { eraseAuthorInSpace, eraseMessagesOfSpace } from "../modules/messages/messages.repository.ts";
import { eraseUploadsOfSpace } from "../modules/uploads/uploads.repository.ts";
import type { UploadsService } from "../modules/uploads/uploads.service.ts";
import type { FileStorage } from "../storage/file-storage.ts";
import type { Repositories } from "./repositories.ts";

/** Mounts the discussions' and the rooms' routes; the discussions service is for payments, deletion and the sweeper. */
export function registerDiscussionRoutes(
  app: ApiServer,
  deps: {
    config: Pick<Config, "discussions">;
    clock: Clock;
    unitOfWork: UnitOfWork;
    repositories: Pick<Repositories, "discussions" | "rooms" | "access" | "spaces" | "plans">;
    storage: Pick<FileStorage, "remove">;
    uploads: Pick<UploadsService, "removeUnfinishedInto">;
  },
) {
  const { config, clock, unitOfWork, repositories, storage } = deps;
  const discussions = createDiscussionsService({
    clock,
    unitOfWork,
    discussions: repositories.discussions,
    rooms: repositories.rooms,
    access: repositories.access,
    spaces: repositories.spaces,
    plans: repositories.plans,
    maxMembers: config.discussions.maxMembers,
    removeFile: (id) => storage.remove(id),
    removeUnfinishedUploads: deps.uploads.removeUnfinishedInto,
    content: { eraseUploads: eraseUploadsOfSpace, eraseMessages: eraseMessagesOfSpace, eraseAuthor: eraseAuthorInSpace },
  });
  const roomDeps = {
    clock,
    unitOfWork,
    rooms: repositories.rooms,
    discussions: repositories.discussions,
    access: repositories.access,
    spaces: repositories.spaces,
    maxMembers: config.discussions.maxMembers,
  };
  const rooms = createRoomsService(roomDeps);
  const roomRequests = createRoomRequestsService({ ...roomDeps, roomsService: rooms });
  discussionsRoutes(app, {
    discussions,
    rooms: (joinOptions) => roomsRoutes(app, { rooms, requests: roomRequests, joinOptions }),
    joinRateLimit: config.discussions.joinRateLimit,
    joinAddressRateLimit: config.discussions.joinAddressRateLimit,
  });
  return discussions;
}
