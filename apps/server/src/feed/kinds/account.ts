/** The kinds of change of a user's account and devices. */
import type { User } from "@daysync/shared";
import { type DeviceRow, presentDevice } from "../../presenters/devices.presenter.ts";
import { defineKind, nothingToLoad } from "./kind.ts";

const userUpdated = defineKind<"user.updated", User>("user.updated", {
  ref: (change) => change.userId,
  parse: (ref, kind) => ({ kind, userId: ref }),
  access: "own",
  load: async (_change, reads) => (await reads.user()) ?? null,
  present: (_change, user) => ({ kind: "user.updated", user }),
});

// A device signed out since is skipped on a replay.
const deviceSignedIn = defineKind<"device.signed_in", DeviceRow>("device.signed_in", {
  ref: (change) => change.sessionId,
  parse: (ref, kind) => ({ kind, sessionId: ref }),
  access: "own",
  load: async (change, reads) => (await reads.device(change.sessionId)) ?? null,
  present: (_change, device) => ({ kind: "device.signed_in", device: presentDevice(device) }),
});

const deviceSignedOut = defineKind("device.signed_out", {
  ref: (change) => change.sessionId,
  parse: (ref, kind) => ({ kind, sessionId: ref }),
  access: "own",
  load: nothingToLoad,
  present: (change) => ({ kind: "device.signed_out", id: change.sessionId }),
});

/** A rename carries the name the device has now, live and on a replay. */
const deviceRenamed = defineKind<"device.renamed", DeviceRow>("device.renamed", {
  ref: (change) => change.sessionId,
  parse: (ref, kind) => ({ kind, sessionId: ref }),
  access: "own",
  load: async (change, reads) => (await reads.device(change.sessionId)) ?? null,
  present: (_change, device) => ({ kind: "device.renamed", id: device.id, name: presentDevice(device).name }),
});

export const accountKinds = {
  "user.updated": userUpdated,
  "device.signed_in": deviceSignedIn,
  "device.signed_out": deviceSignedOut,
  "device.renamed": deviceRenamed,
};
