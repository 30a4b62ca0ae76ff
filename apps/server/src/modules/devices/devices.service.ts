/** The user's signed-in devices: list, rename, sign one or all others out, tell the others when one comes, goes or is renamed. */
import type { DeviceListItem } from "@daysync/shared";
import { may } from "../../access/policies.ts";
import type { Presence } from "../../adapters/presence.ts";
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/database.ts";
import type { UnitOfWork } from "../../feed/unit-of-work.ts";
import { AppError, notFound } from "../../http/errors.ts";
import { presentDevice } from "../../presenters/devices.presenter.ts";
import type { DevicesRepository } from "./devices.repository.ts";

const keyHolderNeeded = () =>
  new AppError(
    403,
    "key_holder_needed",
    "Only a device that can read your messages can sign out the last devices that can. Unlock this one first (with your recovery code or from one of them).",
  );

export function createDevicesService(deps: {
  clock: Clock;
  unitOfWork: UnitOfWork;
  devices: DevicesRepository;
  /** Sessions with a live connection open: seen now, though that is written only when they go. */
  presence: Pick<Presence, "liveAmong">;
  /**
   * What ends with a session in other modules, in its transaction: the pairings it approved or offered that are still
   * open (the pairing module, above this one, handed in by the composition root).
   */
  endedWithSession: (trx: Db, sessionId: string) => Promise<void>;
  /** The sessions' rows, the accounts module's (above this one), handed in by the composition root. */
  sessionRows: {
    delete(trx: Db, userId: string, sessionId: string): Promise<boolean>;
    rename(trx: Db, userId: string, sessionId: string, name: string): Promise<boolean>;
  };
  /** The device's new name on the messages it sent (the messages module's rows), in the rename's transaction. */
  renamedOnMessages: (trx: Db, userId: string, sessionId: string, name: string) => Promise<void>;
}) {
  const { clock, unitOfWork, devices, presence } = deps;

  /**
   * The one way a session ends, from the Devices list or by its own Logout: the row goes, the change is logged
   * (so a device that resumes later learns of it too), the session's live connection closes and the user's other
   * devices get `device.signed_out`. False when the user had no such session.
   */
  async function endSession(userId: string, sessionId: string): Promise<boolean> {
    return unitOfWork.forUser(userId, async (work) => {
      const { rotationDue } = await devices.in(work.trx).dropKeysOfSession(userId, sessionId, clock.now());
      if (!(await deps.sessionRows.delete(work.trx, userId, sessionId))) return false;
      await deps.endedWithSession(work.trx, sessionId);
      const change = { kind: "device.signed_out", sessionId } as const;
      await work.record([userId], change);
      if (rotationDue !== null) {
        const due = { kind: "key.rotation_due", epoch: rotationDue } as const;
        await work.record([userId], due);
      }
      return true;
    });
  }

  return {
    /** Every device of the user: the asking one first (marked), then the others most recently seen first. */
    async list(userId: string, currentSessionId: string): Promise<DeviceListItem[]> {
      const now = clock.now();
      const listed = await devices.list(userId);
      const live = await presence.liveAmong(listed.map((row) => row.id));
      const rows = listed.map((row) => (live.has(row.id) ? { ...row, last_seen_at: now } : row));
      rows.sort((a, b) => Number(b.last_seen_at) - Number(a.last_seen_at));
      const current = rows.filter((row) => row.id === currentSessionId);
      const others = rows.filter((row) => row.id !== currentSessionId);
      return [...current, ...others].map((row) => ({
        ...presentDevice(row),
        current: row.id === currentSessionId,
        key_id: row.key_id ?? null,
      }));
    },

    endSession,

    /**
     * Gives the user's device a name, which its messages (past and future) carry too; the user's devices hear
     * `device.renamed`. 404 for another user's device.
     */
    async rename(userId: string, sessionId: string, currentSessionId: string, name: string): Promise<DeviceListItem> {
      const row = await unitOfWork.forUser(userId, async (work) => {
        const repo = devices.in(work.trx);
        // Only the user's own devices are found, so another's is "no such device" (404), as the policy has it.
        const device = await repo.find(userId, sessionId);
        if (!may({ userId }, "device.rename", { deviceOwnerId: device && userId })) return undefined;
        if (!(await deps.sessionRows.rename(work.trx, userId, sessionId, name))) return undefined;
        await deps.renamedOnMessages(work.trx, userId, sessionId, name);
        const renamed = await repo.find(userId, sessionId);
        if (renamed) await work.record([userId], { kind: "device.renamed", sessionId }, renamed);
        return renamed;
      });
      if (!row) throw notFound("device");
      return { ...presentDevice(row), current: sessionId === currentSessionId };
    },

    /**
     * Refuses (403 `key_holder_needed`) a sign-out from the Devices list that would end the last devices holding the
     * account's current key while the asking device holds none: a device signed in by password and never approved
     * could otherwise sign them all out and then Start over (issue 42). `ending`: one session, or every other one.
     */
    async assertMaySignOut(userId: string, askingSessionId: string, ending: string | "others"): Promise<void> {
      const rows = await devices.list(userId);
      const holders = rows.filter((row) => Boolean(row.holds_current_key)).map((row) => row.id);
      const ends = (id: string) => (ending === "others" ? id !== askingSessionId : id === ending);
      const endsLastKeyHolder = !holders.includes(askingSessionId) && holders.length > 0 && holders.every(ends);
      if (!may({ userId }, "device.sign_out", { deviceOwnerId: userId, endsLastKeyHolder })) throw keyHolderNeeded();
    },

    /** Signs out every device of the user but the asking one, each as if signed out from the list; how many. */
    async signOutOthers(userId: string, currentSessionId: string): Promise<number> {
      const others = (await devices.list(userId)).filter((row) => row.id !== currentSessionId);
      let ended = 0;
      for (const row of others) if (await endSession(userId, row.id)) ended++;
      return ended;
    },

    /** Signs out every device of the user (account disabled, password reset, deletion); how many. */
    async endAllSessions(userId: string): Promise<number> {
      let ended = 0;
      for (const row of await devices.list(userId)) if (await endSession(userId, row.id)) ended++;
      return ended;
    },

    /** Ends that device's session: its cookie stops working and its live connection closes. 404 for another user's. */
    async revoke(userId: string, sessionId: string): Promise<void> {
      if (!(await endSession(userId, sessionId))) throw notFound("device");
    },

    /** One device of the user, as its Devices list shows it; undefined once signed out. */
    async find(userId: string, sessionId: string) {
      const row = await devices.find(userId, sessionId);
      return row && presentDevice(row);
    },

    /** Tells the user's devices that this session was just signed in. */
    async announceSignIn(userId: string, sessionId: string): Promise<void> {
      await unitOfWork.forUser(userId, async (work) => {
        const row = await devices.in(work.trx).find(userId, sessionId);
        if (row) await work.record([userId], { kind: "device.signed_in", sessionId }, row);
      });
    },
  };
}

export type DevicesService = ReturnType<typeof createDevicesService>;
