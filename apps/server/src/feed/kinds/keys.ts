/** The kinds of change of an account's keys (decision 020): epochs, rotation, start over and key requests. */
import { z } from "zod";
import type { KeyEpochsTable } from "../../db/schema.ts";
import { type KeyRequestRow, presentKeyRequest } from "../../presenters/key-requests.presenter.ts";
import { defineKind, nothingToLoad } from "./kind.ts";

const epoch = z
  .string()
  .regex(/^[1-9][0-9]{0,9}$/)
  .transform(Number);

type EpochRow = Pick<KeyEpochsTable, "epoch" | "reason" | "created_by_session_id">;

const keyEpochCreated = defineKind<"key.epoch_created", EpochRow>("key.epoch_created", {
  ref: (change) => String(change.epoch),
  parse(ref, kind) {
    const parsed = epoch.safeParse(ref);
    return parsed.success ? { kind, epoch: parsed.data } : undefined;
  },
  access: "own",
  load: async (change, reads) => (await reads.keyEpoch(change.epoch)) ?? null,
  present: (_change, row) => ({
    kind: "key.epoch_created",
    epoch: Number(row.epoch),
    reason: row.reason,
    session_id: row.created_by_session_id,
  }),
});

const keyRotationDue = defineKind("key.rotation_due", {
  ref: (change) => String(change.epoch),
  parse(ref, kind) {
    const parsed = epoch.safeParse(ref);
    return parsed.success ? { kind, epoch: parsed.data } : undefined;
  },
  access: "own",
  load: nothingToLoad,
  present: (change) => ({ kind: "key.rotation_due", epoch: change.epoch }),
});

const keyStartOverChanged = defineKind("key.start_over_changed", {
  ref: (change) => change.userId,
  parse: (ref, kind) => ({ kind, userId: ref }),
  access: "own",
  load: nothingToLoad,
  present: () => ({ kind: "key.start_over_changed" }),
});

/** An expired request is never served again; a device drops it at its expires_at on its own. */
async function liveRequest(requestId: string, reads: { now: number; keyRequest(id: string): Promise<KeyRequestRow | undefined> }) {
  const row = await reads.keyRequest(requestId);
  return row && Number(row.expires_at) > reads.now ? row : null;
}

const keyRequested = defineKind<"key.requested", KeyRequestRow>("key.requested", {
  ref: (change) => change.requestId,
  parse: (ref, kind) => ({ kind, requestId: ref }),
  access: "own",
  load: (change, reads) => liveRequest(change.requestId, reads),
  present: (_change, row) => ({ kind: "key.requested", request: presentKeyRequest(row) }),
});

const keyRequestUpdated = defineKind<"key.request_updated", KeyRequestRow>("key.request_updated", {
  ref: (change) => change.requestId,
  parse: (ref, kind) => ({ kind, requestId: ref }),
  access: "own",
  load: (change, reads) => liveRequest(change.requestId, reads),
  present: (_change, row) => ({ kind: "key.request_updated", request: presentKeyRequest(row) }),
});

export const keyKinds = {
  "key.epoch_created": keyEpochCreated,
  "key.rotation_due": keyRotationDue,
  "key.start_over_changed": keyStartOverChanged,
  "key.requested": keyRequested,
  "key.request_updated": keyRequestUpdated,
};
