/** Turns logged changes back into live events, reading the current state (expired or deleted rows are skipped). */
import type { LiveEvent } from "@daysync/shared";
import type { Db } from "../db/database.ts";
import type { ChangeRow } from "../events/changes.repository.ts";
import { loadUser } from "../modules/accounts/user.presenter.ts";
import { createUsersRepository } from "../modules/accounts/users.repository.ts";
import { createDevicesRepository } from "../modules/devices/devices.repository.ts";
import { deviceEventOf } from "../modules/devices/devices.service.ts";
import { presentDay, presentMessage } from "../modules/messages/messages.presenter.ts";
import { findMessage, liveDays, retentionCutoff, retentionOf } from "../modules/messages/messages.repository.ts";

export async function eventOf(db: Db, userId: string, change: ChangeRow, now: number): Promise<LiveEvent | undefined> {
  switch (change.kind) {
    case "day.upserted": {
      const [day] = await liveDays(db, userId, await retentionCutoff(db, userId, now), [change.ref]);
      return day && { kind: "day.upserted", day: presentDay(day) };
    }
    case "message.created": {
      const message = await findMessage(db, change.ref);
      if (!message || message.user_id !== userId) return undefined;
      const minutes = await retentionOf(db, userId);
      if (minutes !== null && Number(message.created_at) < now - minutes * 60_000) return undefined;
      return { kind: "message.created", message: presentMessage(message) };
    }
    case "messages.deleted":
      return { kind: "messages.deleted", ids: JSON.parse(change.ref) as string[] };
    case "user.updated": {
      const user = await loadUser(createUsersRepository(db), userId);
      return user && { kind: "user.updated", user };
    }
    case "device.signed_in":
    case "device.signed_out":
      return deviceEventOf(createDevicesRepository(db), userId, change);
  }
}
