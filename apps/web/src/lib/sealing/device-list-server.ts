/** The signed device list's routes for this browser's AccountKeys (docs/protocol/encryption.md, "Signed device list"). */
import { DEVICE_LIST_API, deviceListSchema } from "@daysync/shared";
import type { DeviceListServer } from "@daysync/shared/crypto";
import { ApiError, api, apiFetch } from "../api-client.ts";

export const webDeviceListServer: DeviceListServer = {
  read: () => api.get(DEVICE_LIST_API.list, deviceListSchema),
  async append(entry) {
    try {
      return { ok: true, list: await api.post(DEVICE_LIST_API.append, { entry }, deviceListSchema) };
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) return { ok: false, code: error.code };
      throw error;
    }
  },
  async setSigningKey(signingKey) {
    await apiFetch(DEVICE_LIST_API.signingKey, { method: "PUT", body: { signing_key: signingKey } });
  },
};
