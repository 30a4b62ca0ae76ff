/** The routes of decision 020's key state, requests and recovery code, each with its service. */

import type { Clock } from "../clock.ts";
import type { UnitOfWork } from "../feed/unit-of-work.ts";
import type { ApiServer } from "../http/answers.ts";
import { deviceListRoutes } from "../modules/keys/device-list.routes.ts";
import { createDeviceListService } from "../modules/keys/device-list.service.ts";
import { keyRecoveryRoutes } from "../modules/keys/key-recovery.routes.ts";
import { createKeyRecoveryService } from "../modules/keys/key-recovery.service.ts";
import { keyRequestsRoutes } from "../modules/keys/key-requests.routes.ts";
import { createKeyRequestsService } from "../modules/keys/key-requests.service.ts";
import { keysRoutes } from "../modules/keys/keys.routes.ts";
import { createKeysService } from "../modules/keys/keys.service.ts";
import type { Repositories } from "./repositories.ts";

export function registerKeyRoutes(
  app: ApiServer,
  deps: { clock: Clock; unitOfWork: UnitOfWork; repositories: Pick<Repositories, "keys" | "keyRecovery" | "keyRequests" | "deviceList"> },
) {
  const { clock, unitOfWork, repositories } = deps;
  const keys = createKeysService({ clock, unitOfWork, keys: repositories.keys, recovery: repositories.keyRecovery });
  keysRoutes(app, { keys });
  deviceListRoutes(app, { list: createDeviceListService({ clock, unitOfWork, list: repositories.deviceList }) });
  const recovery = createKeyRecoveryService({
    clock,
    unitOfWork,
    keys: repositories.keys,
    recovery: repositories.keyRecovery,
    keysService: keys,
  });
  keyRecoveryRoutes(app, { recovery });
  keyRequestsRoutes(app, {
    requests: createKeyRequestsService({ clock, unitOfWork, keys: repositories.keys, requests: repositories.keyRequests }),
  });
}
