/** The user's signed-in devices: list, sign one out, tell the others when one comes or goes. */
import type { DeviceListItem, LiveEvent } from "@daysync/shared";
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/database.ts";
import { inUserTransaction } from "../../db/user-transaction.ts";
import { appendChange, type ChangeRow } from "../../events/changes.repository.ts";
import type { EventBus } from "../../events/event-bus.ts";
import { notFound } from "../../http/errors.ts";
import { presentDevice } from "./devices.presenter.ts";
import { createDevicesRepository, type DevicesRepository } from "./devices.repository.ts";

export function createDevicesService(deps: { db: Db; clock: Clock; bus: EventBus; devices: DevicesRepository }) {
  const { db, clock, bus, devices } = deps;

  /**
   * The one way a session ends, from the Devices list or by its own Logout: the row goes, the change is logged
   * (so a device that resumes later learns of it too), the session's live connection closes and the user's other
   * devices get `device.signed_out`. False when the user had no such session.
   */
  async function endSession(userId: string, sessionId: string): Promise<boolean> {
    const now = clock.now();
    const seq = await inUserTransaction(db, userId, async (trx) => {
      if (!(await createDevicesRepository(trx).remove(userId, sessionId))) return undefined;
      return appendChange(trx, userId, "device.signed_out", sessionId, now);
    });
    if (seq === undefined) return false;
    bus.publish("session.revoked", { userId, sessionId });
    bus.publish("change", { userId, seq, event: { kind: "device.signed_out", id: sessionId } });
    return true;
  }

  return {
    /** Every device of the user, most recently seen first, the asking one marked. */
    async list(userId: string, currentSessionId: string): Promise<DeviceListItem[]> {
      const rows = await devices.list(userId);
      return rows.map((row) => ({ ...presentDevice(row), current: row.id === currentSessionId }));
    },

    endSession,

    /** Ends that device's session: its cookie stops working and its live connection closes. 404 for another user's. */
    async revoke(userId: string, sessionId: string): Promise<void> {
      if (!(await endSession(userId, sessionId))) throw notFound("device");
    },

    /** Tells the user's devices that this session was just signed in. */
    async announceSignIn(userId: string, sessionId: string): Promise<void> {
      const now = clock.now();
      const result = await inUserTransaction(db, userId, async (trx) => {
        const row = await createDevicesRepository(trx).find(userId, sessionId);
        if (!row) return undefined;
        return { row, seq: await appendChange(trx, userId, "device.signed_in", sessionId, now) };
      });
      if (result)
        bus.publish("change", { userId, seq: result.seq, event: { kind: "device.signed_in", device: presentDevice(result.row) } });
    },
  };
}

export type DevicesService = ReturnType<typeof createDevicesService>;

/** Rebuilds a logged device change for replay; a device signed out since is skipped. */
export async function deviceEventOf(devices: DevicesRepository, userId: string, change: ChangeRow): Promise<LiveEvent | undefined> {
  if (change.kind === "device.signed_out") return { kind: "device.signed_out", id: change.ref };
  if (change.kind !== "device.signed_in") return undefined;
  const row = await devices.find(userId, change.ref);
  return row && { kind: "device.signed_in", device: presentDevice(row) };
}
